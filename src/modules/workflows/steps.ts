/**
 * What each step type does to one execution, as a result the engine writes back. Nothing here
 * writes to the database: the engine stores every result of a batch in one transaction, and only
 * for executions that are still where they were claimed.
 */
import { randomUUID } from 'node:crypto';
import { parseDataPatch, type DataPatch } from '../../domain/contact-data.js';
import { evaluateCondition, type FilterContext, type FilterSubject } from '../../domain/filters/index.js';
import { TemplateError } from '../../domain/render.js';
import { durationMs, type Duration, type StepConfig } from '../../domain/workflows/steps.js';
import type { AppContext } from '../../platform/context.js';
import type { Branch } from '../../platform/db/schema.js';
import { AppError } from '../../platform/http/errors.js';
import { retryDelay } from '../../platform/queue.js';
import { sendWebhook, WebhookError } from '../../platform/webhook.js';
import { assertVerifiedSender } from '../domains/service.js';
import { composeEmail } from '../emails/compose.js';
import type { NewEmail } from '../emails/repo.js';
import { cachedTemplate } from '../templates/service.js';
import type { ClaimedExecution, StepRow } from './repo.js';

export type StepResult =
  | { kind: 'next'; branch: Branch | null; output?: Record<string, unknown>; email?: NewEmail; contactUpdate?: ContactUpdate }
  | { kind: 'wait'; until: Date; event: string | null }
  | { kind: 'exit' }
  | { kind: 'fail'; error: string }
  | { kind: 'retry'; error: string; at: Date };

export interface ContactUpdate {
  patch: DataPatch;
  subscribed?: boolean;
}

export interface StepInput {
  exec: ClaimedExecution;
  step: StepRow;
  signingSecret: string;
  now: Date;
}

const WEBHOOK_TIMEOUT_MS = 10_000;
/** Attempts of a WEBHOOK step (10 s, 20 s, 40 s, 80 s apart) before the execution fails. */
export const WEBHOOK_ATTEMPTS = 5;
const WEBHOOK_RETRY_BASE_MS = 10_000;

const config = <T extends keyof StepConfigs>(step: StepRow) => step.config as unknown as StepConfigs[T];
type StepConfigs = { [T in StepRow['type']]: StepConfig<T> };

/** The contact as templates, conditions and webhooks see it. */
function contactOf(exec: ClaimedExecution) {
  return { id: exec.contact_id, email: exec.email, subscribed: exec.subscribed, data: exec.data };
}

/** SEND_EMAIL: the template rendered for the contact (and `{{ context.… }}`), under the marketing rules. */
export async function sendEmail(ctx: AppContext, { exec, step }: StepInput): Promise<StepResult> {
  const { templateId } = config<'SEND_EMAIL'>(step);
  const template = await cachedTemplate(ctx, exec.project_id, templateId);
  if (!template) return { kind: 'fail', error: `Template ${templateId} no longer exists` };
  try {
    await assertVerifiedSender(ctx, ctx.db, exec.project_id, template.from);
  } catch (err) {
    if (err instanceof AppError) return { kind: 'fail', error: err.message };
    throw err;
  }
  try {
    const email = await composeEmail(
      randomUUID(),
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
      },
      { contact: contactOf(exec), name: null, transient: { context: exec.context } },
      { publicUrl: ctx.config.publicUrl, signer: ctx.links },
      ctx.templates.render.bind(ctx.templates),
    );
    return { kind: 'next', branch: null, email, output: { emailId: email.id, status: email.status } };
  } catch (err) {
    if (err instanceof TemplateError) return { kind: 'fail', error: `The template's ${err.part} could not be rendered: ${err.message}` };
    throw err;
  }
}

const later = (now: Date, d: Duration) => new Date(now.getTime() + durationMs(d));

/** DELAY: waits, then (once the time has come, `status` waiting) moves on. */
export function delay({ exec, step, now }: StepInput): StepResult {
  if (exec.status === 'waiting') return { kind: 'next', branch: null };
  return { kind: 'wait', until: later(now, config<'DELAY'>(step)), event: null };
}

/** WAIT_FOR_EVENT: waits for the event (branch `arrived`) or the timeout (branch `timeout`). */
export function waitForEvent({ exec, step, now }: StepInput): StepResult {
  if (exec.status === 'waiting') return { kind: 'next', branch: exec.wait_arrived ? 'arrived' : 'timeout' };
  const { event, timeout } = config<'WAIT_FOR_EVENT'>(step);
  return { kind: 'wait', until: later(now, timeout), event };
}

/** CONDITION: the filter tree judged for this contact (and its context) in memory. */
export function condition({ step }: StepInput, subject: FilterSubject, filters: FilterContext): StepResult {
  const matched = evaluateCondition(config<'CONDITION'>(step).condition, subject, filters);
  return { kind: 'next', branch: matched ? 'yes' : 'no' };
}

/** UPDATE_CONTACT: the patch, applied by the engine under the `data` rules in its write. */
export function updateContact({ step }: StepInput): StepResult {
  const { data, subscribed } = config<'UPDATE_CONTACT'>(step);
  return { kind: 'next', branch: null, contactUpdate: { patch: parseDataPatch(data), subscribed } };
}

/** Strings anywhere in a webhook body are Liquid templates over the contact and the context (rendered as subjects: one line, unescaped). */
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
 * WEBHOOK: one signed request. 2xx moves on (the status is kept in the history); timeouts, network
 * errors, 408, 429 and 5xx are retried with backoff up to WEBHOOK_ATTEMPTS; anything else fails the
 * execution. `visit` tells this visit of the step from earlier ones, so retries share a webhook-id.
 */
export async function webhook(ctx: AppContext, { exec, step, signingSecret, now }: StepInput, visit: number): Promise<StepResult> {
  const c = config<'WEBHOOK'>(step);
  const contact = contactOf(exec);
  let body: string;
  try {
    const payload =
      c.body === undefined
        ? { type: 'workflow.webhook', workflowId: exec.workflow_id, executionId: exec.id, stepId: step.id, contact, context: exec.context, timestamp: now.toISOString() }
        : await renderDeep(ctx, c.body, { ...contact.data, data: contact.data, email: contact.email, id: contact.id, context: exec.context });
    body = c.method === 'GET' ? '' : JSON.stringify(payload);
  } catch (err) {
    if (err instanceof TemplateError) return { kind: 'fail', error: `The webhook body could not be rendered: ${err.message}` };
    throw err;
  }
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
      return { kind: 'retry', error: err.message, at: new Date(now.getTime() + retryDelay(exec.attempts, WEBHOOK_RETRY_BASE_MS)) };
    }
    return { kind: 'fail', error: err.temporary ? `${err.message} (gave up after ${exec.attempts} attempts)` : err.message };
  }
}
