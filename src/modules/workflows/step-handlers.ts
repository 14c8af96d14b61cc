import { newEmailId } from '../../domain/email-id.js';
/**
 * How each step type runs: one handler per entry of the step-type table (domain/workflows/
 * step-types.ts), checked for completeness by the compiler. A handler returns a result the engine
 * writes back; nothing here writes to the database: the engine stores every result of a batch in
 * one transaction, and only for executions that are still where they were claimed.
 */

import { type DataPatch, parseDataPatch } from '../../domain/contact-data.js';
import {
  checkSegments,
  evaluateCondition,
  eventNamesIn,
  type FilterContext,
  FilterError,
  type FilterSubject,
} from '../../domain/filters/index.js';
import { backoffMs } from '../../domain/formats.js';
import { contactZone, nextLocalTime } from '../../domain/local-time.js';
import { TemplateError } from '../../domain/render.js';
import { choiceOf, resolveTracking } from '../../domain/tracking.js';
import {
  type Branch,
  type Duration,
  durationMs,
  type StepConfig,
  type StepType,
} from '../../domain/workflows/step-types.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import { AppError, validationError } from '../../platform/http/errors.js';
import { sendWebhook, WebhookError } from '../../platform/webhook.js';
import { assertVerifiedSender } from '../domains/service.js';
import { composeEmail } from '../emails/compose.js';
import type { NewEmail } from '../emails/service.js';
import { eventsOfContacts } from '../events/service.js';
import { projectTimeZones } from '../projects/service.js';
import { checkAudience, filterContext } from '../segments/audience.js';
import { membershipsOf } from '../segments/service.js';
import { cachedTemplate, findTemplate } from '../templates/service.js';
import { checkTopicId, checkTopicIds, findTopic, membersAmong, topicsOfContacts } from '../topics/service.js';
import { trackingFor } from '../tracking-settings/service.js';
import { type ClaimedExecution, historyCount } from './executions-repo.js';
import type { StepRow } from './repo.js';

export type StepResult =
  | {
      kind: 'next';
      branch: Branch | null;
      output?: Record<string, unknown>;
      email?: NewEmail;
      contactUpdate?: ContactUpdate;
    }
  | { kind: 'wait'; until: Date; event: string | null }
  | { kind: 'exit' }
  | { kind: 'fail'; error: string }
  | { kind: 'retry'; error: string; at: Date };

export interface ContactUpdate {
  patch: DataPatch;
  subscribed?: boolean;
  topics?: Record<string, boolean>;
}

export interface StepInput<T extends StepType> {
  exec: ClaimedExecution;
  step: StepRow;
  config: StepConfig<T>;
  signingSecret: string;
  now: Date;
}

export interface StepHandler<T extends StepType, Prepared = undefined> {
  /** Checks a config that passed its schema against the project (what it names exists); throws a validation error. */
  check?(ex: Executor, projectId: string, config: StepConfig<T>, now: Date): Promise<void>;
  /**
   * Loads what the batch's executions at steps of this type need, once per batch, by execution id.
   * An execution whose preparation failed gets the error and fails.
   */
  prepare?(
    ctx: AppContext,
    claims: { exec: ClaimedExecution; config: StepConfig<T> }[],
    now: Date,
  ): Promise<Map<string, Prepared | Error>>;
  /** Runs outside the batch, so that a slow step never holds up the other executions. */
  background?: true;
  run(ctx: AppContext, input: StepInput<T>, prepared: Prepared): Promise<StepResult> | StepResult;
}

const WEBHOOK_TIMEOUT_MS = 10_000;
/** Attempts of a WEBHOOK step (10 s, 20 s, 40 s, 80 s apart) before the execution fails. */
export const WEBHOOK_ATTEMPTS = 5;
const WEBHOOK_RETRY_BASE_MS = 10_000;

/** The contact as templates, conditions and webhooks see it. */
function contactOf(exec: ClaimedExecution) {
  return { id: exec.contact_id, email: exec.email, subscribed: exec.subscribed, data: exec.data };
}

const later = (now: Date, d: Duration) => new Date(now.getTime() + durationMs(d));

/** The template rendered for the contact (and `{{ context.… }}`), under the marketing rules. */
const sendEmail: StepHandler<'SEND_EMAIL'> = {
  async check(ex, projectId, { templateId, topicId }) {
    await checkTopicId(ex, projectId, topicId, 'config.topicId');
    if (await findTemplate(ex, projectId, templateId)) return;
    throw validationError([
      {
        field: 'config.templateId',
        message: 'No template of this project has this id',
        code: 'unknown_template',
        received: templateId,
      },
    ]);
  },
  async run(ctx, { exec, config: { templateId, topicId } }) {
    const template = await cachedTemplate(ctx, exec.project_id, templateId);
    if (!template) return { kind: 'fail', error: `Template ${templateId} no longer exists` };
    // About a topic: a marketing email is skipped for a contact that does not receive it (or a topic deleted since).
    const topicOfSend = topicId ?? template.topicId;
    const aboutTopic = template.type === 'MARKETING' && topicOfSend ? topicOfSend : null;
    let inTopic = true;
    if (aboutTopic) {
      const topic = await findTopic(ctx.db, exec.project_id, aboutTopic);
      inTopic = topic ? (await membersAmong(ctx.db, topic, [exec.contact_id])).has(exec.contact_id) : false;
    }
    try {
      await assertVerifiedSender(ctx, ctx.db, exec.project_id, template.from);
    } catch (err) {
      if (err instanceof AppError) return { kind: 'fail', error: err.message };
      throw err;
    }
    try {
      const email = await composeEmail(
        newEmailId(),
        exec.project_id,
        {
          type: template.type,
          subject: template.subject,
          body: template.body,
          from: { email: template.from, name: template.fromName },
          replyTo: template.replyTo,
          headers: {},
          attachmentSetId: null,
          templateId: template.id,
          campaignId: null,
          topicId: aboutTopic,
          tracking: resolveTracking(template.type, await trackingFor(ctx, exec.project_id), choiceOf(template)),
        },
        { contact: contactOf(exec), name: null, transient: { context: exec.context }, inTopic },
        { publicUrl: ctx.config.publicUrl, signer: ctx.links },
        ctx.templates.render.bind(ctx.templates),
      );
      return { kind: 'next', branch: null, email, output: { emailId: email.id, status: email.status } };
    } catch (err) {
      if (err instanceof TemplateError)
        return { kind: 'fail', error: `The template's ${err.part} could not be rendered: ${err.message}` };
      throw err;
    }
  },
};

/**
 * Waits for the duration, or until the time of day in the contact's zone (read from its data when
 * the wait starts, else the project's default zone), then (once the time has come, `status`
 * waiting) moves on.
 */
const delay: StepHandler<'DELAY', string | undefined> = {
  /** The default zone of each project with an execution starting a wait until a time of day. */
  async prepare(ctx, claims) {
    const untilClaims = claims.filter(({ config }) => 'until' in config);
    const zones = await projectTimeZones(ctx.db, [...new Set(untilClaims.map(({ exec }) => exec.project_id))]);
    return new Map(untilClaims.map(({ exec }) => [exec.id, zones.get(exec.project_id)]));
  },
  run(_ctx, { exec, config, now }, projectZone) {
    if (exec.status === 'waiting') return { kind: 'next', branch: null };
    const until =
      'until' in config
        ? nextLocalTime(now, contactZone(exec.data, projectZone ?? 'UTC'), config.until.time)
        : later(now, config);
    return { kind: 'wait', until, event: null };
  },
};

/** Waits for the event (branch `arrived`) or the timeout (branch `timeout`). */
const waitForEvent: StepHandler<'WAIT_FOR_EVENT'> = {
  run(_ctx, { exec, config: { event, timeout }, now }) {
    if (exec.status === 'waiting') return { kind: 'next', branch: exec.wait_arrived ? 'arrived' : 'timeout' };
    return { kind: 'wait', until: later(now, timeout), event };
  },
};

/** The filter tree judged for this contact (and its context) in memory. */
const condition: StepHandler<'CONDITION', { subject: FilterSubject; filters: FilterContext }> = {
  async check(ex, projectId, config, now) {
    checkAudience(config.condition, await filterContext(ex, projectId, now), 'config.condition');
  },
  /**
   * Each project's field types and segments, and the contacts' events (of the names the trees ask
   * about) and segment memberships.
   */
  async prepare(ctx, claims, now) {
    const prepared = new Map<string, { subject: FilterSubject; filters: FilterContext } | Error>();
    const contexts = new Map<string, FilterContext>();
    const names = new Set<string>();
    for (const { exec, config } of claims) {
      if (!contexts.has(exec.project_id))
        contexts.set(exec.project_id, await filterContext(ctx.db, exec.project_id, now));
      try {
        checkSegments(config.condition, contexts.get(exec.project_id)!);
        for (const name of eventNamesIn(config.condition, contexts.get(exec.project_id)!)) names.add(name);
      } catch (err) {
        if (err instanceof FilterError) prepared.set(exec.id, err);
        else throw err;
      }
    }
    const contactIds = [...new Set(claims.map((c) => c.exec.contact_id))];
    const [events, memberships, topics] = await Promise.all([
      eventsOfContacts(ctx.db, contactIds, [...names]),
      membershipsOf(ctx.db, contactIds),
      topicChoicesByProject(ctx.db, claims),
    ]);
    for (const { exec } of claims) {
      if (prepared.has(exec.id)) continue;
      prepared.set(exec.id, {
        filters: contexts.get(exec.project_id)!,
        subject: {
          contact: {
            email: exec.email,
            subscribed: exec.subscribed,
            createdAt: new Date(exec.contact_created_at),
            data: exec.data,
          },
          events: events
            .filter((e) => e.contact_id === exec.contact_id)
            .map((e) => ({ name: e.name, createdAt: new Date(e.created_at) })),
          memberOf: new Set(memberships.filter((m) => m.contact_id === exec.contact_id).map((m) => m.segment_id)),
          context: exec.context,
          topics: topics.get(exec.contact_id) ?? {},
        },
      });
    }
    return prepared;
  },
  run(_ctx, { config }, { subject, filters }) {
    return { kind: 'next', branch: evaluateCondition(config.condition, subject, filters) ? 'yes' : 'no' };
  },
};

/** The patch, applied by the engine under the `data` rules in its write. */
const updateContact: StepHandler<'UPDATE_CONTACT'> = {
  async check(ex, projectId, { topics }) {
    if (topics) await checkTopicIds(ex, projectId, Object.keys(topics), 'config.topics');
  },
  run(_ctx, { config: { data, subscribed, topics } }) {
    return { kind: 'next', branch: null, contactUpdate: { patch: parseDataPatch(data), subscribed, topics } };
  },
};

const exit: StepHandler<'EXIT'> = { run: () => ({ kind: 'exit' }) };

/**
 * Strings anywhere in a webhook body are Liquid templates over the contact and the context (rendered as subjects: one
 * line, unescaped).
 */
async function renderDeep(ctx: AppContext, value: unknown, scope: Record<string, unknown>): Promise<unknown> {
  if (typeof value === 'string') return ctx.templates.render('subject', value, scope);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const v of value) out.push(await renderDeep(ctx, v, scope));
    return out;
  }
  if (value !== null && typeof value === 'object') {
    const entries: [string, unknown][] = [];
    for (const [k, v] of Object.entries(value)) entries.push([k, await renderDeep(ctx, v, scope)]);
    return Object.fromEntries(entries);
  }
  return value;
}

/**
 * One signed request. 2xx moves on (the status is kept in the history); timeouts, network errors,
 * 408, 429 and 5xx are retried with backoff up to WEBHOOK_ATTEMPTS; anything else fails the
 * execution. Retries of one visit of the step share a webhook-id; a later visit (a loop) gets its own.
 */
const webhook: StepHandler<'WEBHOOK'> = {
  background: true,
  async run(ctx, { exec, step, config: c, signingSecret, now }) {
    const contact = contactOf(exec);
    let body: string;
    try {
      const payload =
        c.body === undefined
          ? {
              type: 'workflow.webhook',
              workflowId: exec.workflow_id,
              executionId: exec.id,
              stepId: step.id,
              contact,
              context: exec.context,
              timestamp: now.toISOString(),
            }
          : await renderDeep(ctx, c.body, {
              ...contact.data,
              data: contact.data,
              email: contact.email,
              id: contact.id,
              context: exec.context,
            });
      body = c.method === 'GET' ? '' : JSON.stringify(payload);
    } catch (err) {
      if (err instanceof TemplateError)
        return { kind: 'fail', error: `The webhook body could not be rendered: ${err.message}` };
      throw err;
    }
    const visit = await historyCount(ctx.db, exec.id);
    try {
      const answer = await sendWebhook(
        {
          url: c.url,
          method: c.method,
          headers: c.headers,
          body,
          id: `msg_${exec.id}_${step.id}_${visit}`,
          secret: signingSecret,
          timeoutMs: WEBHOOK_TIMEOUT_MS,
          allowPrivate: ctx.config.webhookAllowPrivate,
        },
        now.getTime(),
      );
      return { kind: 'next', branch: null, output: { status: answer.status } };
    } catch (err) {
      if (!(err instanceof WebhookError)) throw err;
      if (err.temporary && exec.attempts < WEBHOOK_ATTEMPTS) {
        return {
          kind: 'retry',
          error: err.message,
          at: new Date(now.getTime() + backoffMs(exec.attempts, WEBHOOK_RETRY_BASE_MS)),
        };
      }
      return {
        kind: 'fail',
        error: err.temporary ? `${err.message} (gave up after ${exec.attempts} attempts)` : err.message,
      };
    }
  },
};

const STEP_HANDLERS = {
  SEND_EMAIL: sendEmail,
  DELAY: delay,
  WAIT_FOR_EVENT: waitForEvent,
  CONDITION: condition,
  WEBHOOK: webhook,
  UPDATE_CONTACT: updateContact,
  EXIT: exit,
} satisfies { [T in StepType]: StepHandler<T, unknown> };

/** A type's handler, seen through what every handler has (its config is the stored, checked one). */
export const stepHandler = (type: StepType): StepHandler<StepType, unknown> => STEP_HANDLERS[type];

/** The topics of the claims' contacts (topic id → receives it), per contact, each project's at once. */
async function topicChoicesByProject(
  ex: Executor,
  claims: { exec: { project_id: string; contact_id: string } }[],
): Promise<Map<string, Record<string, boolean>>> {
  const byProject = new Map<string, Set<string>>();
  for (const { exec } of claims) {
    const ids = byProject.get(exec.project_id) ?? new Set<string>();
    ids.add(exec.contact_id);
    byProject.set(exec.project_id, ids);
  }
  const out = new Map<string, Record<string, boolean>>();
  for (const [projectId, ids] of byProject) {
    for (const [id, topics] of await topicsOfContacts(ex, projectId, [...ids])) out.set(id, topics);
  }
  return out;
}
