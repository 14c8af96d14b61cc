/**
 * Runs workflow executions. An execution row is its own durable job: the engine claims due rows in
 * batches under a lease (SKIP LOCKED, so any number of workers share the work), runs each one's
 * current step, and writes the batch's outcomes back in one transaction. A write moves an execution
 * only if it is still where it was claimed (`step_seq` unchanged, still active), and stores the
 * step's history row, email and contact change only for executions it moved: a step whose claim
 * expired and was taken by another worker, or that was cancelled meanwhile, changes nothing.
 *
 * Delays and waits are rows with a future `next_run_at`, so they survive restarts; an event a
 * WAIT_FOR_EVENT step waits for makes its execution due at once (triggers.ts). WEBHOOK steps run
 * outside the batch, so a slow endpoint never holds up the other executions.
 */
import { checkSegments, eventNamesIn, FilterError, type FilterContext, type FilterSubject } from '../../domain/filters/index.js';
import { nextStep } from '../../domain/workflows/graph.js';
import type { AppContext } from '../../platform/context.js';
import { notify } from '../../platform/db/client.js';
import type { Branch } from '../../platform/db/schema.js';
import { PollTimer } from '../../platform/polling.js';
import { retryDelay } from '../../platform/queue.js';
import { changeContact } from '../contacts/service.js';
import { EMAILS_CHANNEL, type NewEmail } from '../emails/repo.js';
import { eventsOfContacts } from '../events/repo.js';
import { filterContext } from '../segments/audience.js';
import { membershipsOf } from '../segments/repo.js';
import { cachedGraph, type WorkflowGraph } from './graphs.js';
import * as repo from './repo.js';
import type { ClaimedExecution, ExecutionWrite, StepRow } from './repo.js';
import * as steps from './steps.js';
import type { ContactUpdate, StepResult } from './steps.js';

export interface WorkflowEngineOptions {
  /** Executions claimed per round. */
  batch: number;
  /** How long a claimed execution stays with this worker; longer than a webhook's timeout. */
  leaseMs: number;
}

/** Claims of one step (a worker dying on it each time) before the execution is failed. */
const MAX_CLAIMS = 10;
const RETRY_BASE_MS = 5_000;
const STOP_DRAIN_MS = 10_000;

interface Outcome {
  write: ExecutionWrite;
  email?: NewEmail;
  contactUpdate?: ContactUpdate & { projectId: string; contactId: string };
}

export class WorkflowEngine {
  private stopping = false;
  private loopDone: Promise<void> = Promise.resolve();
  private readonly poll = new PollTimer(250);
  private unlisten?: () => Promise<void>;
  /** Webhook steps under way, written back when they finish. */
  private readonly webhooks = new Set<Promise<void>>();
  /** Claimed and not yet written back: released at stop so another worker takes them at once. */
  private readonly held = new Set<string>();

  constructor(
    private readonly ctx: AppContext,
    private readonly options: WorkflowEngineOptions,
  ) {}

  async start(): Promise<void> {
    this.unlisten = await this.ctx.database.listen(repo.EXECUTIONS_CHANNEL, () => this.poll.wake());
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.poll.wake();
    await this.loopDone;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.webhooks]), new Promise((r) => (timer = setTimeout(r, STOP_DRAIN_MS)))]);
    clearTimeout(timer);
    await repo.releaseExecutions(this.ctx.db, [...this.held]).catch(() => {});
    await this.unlisten?.();
  }

  /**
   * Claims a batch, runs its steps, and hands the outcomes to the writer; while one batch's outcomes
   * are being written, the next batch is claimed and run. Writes stay one at a time, in order.
   */
  private async loop(): Promise<void> {
    let writing: Promise<void> = Promise.resolve();
    while (!this.stopping) {
      let claimed: ClaimedExecution[] = [];
      try {
        const now = this.ctx.clock.now();
        claimed = await repo.claimDueExecutions(this.ctx.db, now, new Date(now.getTime() + this.options.leaseMs), this.options.batch);
        for (const exec of claimed) this.held.add(exec.id);
        if (claimed.length > 0) {
          const outcomes = await this.runBatch(claimed);
          await writing;
          writing = this.write(outcomes);
        }
      } catch (err) {
        if (!this.stopping) this.ctx.log.error({ err }, 'running workflow steps failed');
      }
      await this.poll.next(claimed.length === this.options.batch);
    }
    await writing;
  }

  private async runBatch(claimed: ClaimedExecution[]): Promise<Outcome[]> {
    const now = this.ctx.clock.now();
    const graphs = new Map<string, WorkflowGraph | null>();
    for (const id of new Set(claimed.map((e) => e.workflow_id))) graphs.set(id, await cachedGraph(this.ctx, id));
    const subjects = await this.conditionSubjects(claimed, graphs, now);
    const outcomes: Outcome[] = [];
    for (const exec of claimed) {
      const graph = graphs.get(exec.workflow_id) ?? null;
      const step = graph && exec.current_step_id ? graph.steps.get(exec.current_step_id) : undefined;
      if (!graph || !step) {
        outcomes.push(outcome(exec, graph, null, { kind: 'fail', error: 'The step this execution was at no longer exists' }, now));
      } else if (step.type === 'WEBHOOK' && exec.status === 'running') {
        this.trackWebhook(exec, graph, step, now);
      } else {
        outcomes.push(outcome(exec, graph, step, await this.runStep(exec, graph, step, subjects, now), now));
      }
    }
    return outcomes;
  }

  private async runStep(
    exec: ClaimedExecution,
    graph: WorkflowGraph,
    step: StepRow,
    subjects: Map<string, { subject: FilterSubject; filters: FilterContext } | FilterError>,
    now: Date,
  ): Promise<StepResult> {
    if (exec.attempts > MAX_CLAIMS) return { kind: 'fail', error: `The ${step.type} step was tried ${MAX_CLAIMS} times without finishing` };
    const input = { exec, step, signingSecret: graph.workflow.signing_secret, now };
    try {
      switch (step.type) {
        case 'SEND_EMAIL':
          return await steps.sendEmail(this.ctx, input);
        case 'DELAY':
          return steps.delay(input);
        case 'WAIT_FOR_EVENT':
          return steps.waitForEvent(input);
        case 'CONDITION': {
          const prepared = subjects.get(exec.id)!;
          if (prepared instanceof FilterError) return { kind: 'fail', error: prepared.message };
          return steps.condition(input, prepared.subject, prepared.filters);
        }
        case 'UPDATE_CONTACT':
          return steps.updateContact(input);
        case 'EXIT':
          return { kind: 'exit' };
        case 'WEBHOOK':
          return await steps.webhook(this.ctx, input, await repo.historyCount(this.ctx.db, exec.id));
      }
    } catch (err) {
      this.ctx.log.warn({ err, executionId: exec.id, stepId: step.id }, 'a workflow step failed');
      const error = err instanceof Error ? err.message : String(err);
      return exec.attempts >= MAX_CLAIMS
        ? { kind: 'fail', error }
        : { kind: 'retry', error, at: new Date(now.getTime() + retryDelay(exec.attempts, RETRY_BASE_MS)) };
    }
  }

  /**
   * What CONDITION steps need, loaded once per batch: each project's field types and segments, and
   * the contacts' events (of the names the trees ask about) and segment memberships.
   */
  private async conditionSubjects(claimed: ClaimedExecution[], graphs: Map<string, WorkflowGraph | null>, now: Date) {
    const prepared = new Map<string, { subject: FilterSubject; filters: FilterContext } | FilterError>();
    const pending = claimed.flatMap((exec) => {
      const step = exec.current_step_id ? graphs.get(exec.workflow_id)?.steps.get(exec.current_step_id) : undefined;
      return step?.type === 'CONDITION' && exec.status === 'running' ? [{ exec, condition: (step.config as { condition: never }).condition }] : [];
    });
    if (pending.length === 0) return prepared;
    const contexts = new Map<string, FilterContext>();
    const names = new Set<string>();
    for (const { exec, condition } of pending) {
      if (!contexts.has(exec.project_id)) contexts.set(exec.project_id, await filterContext(this.ctx.db, exec.project_id, now));
      try {
        checkSegments(condition, contexts.get(exec.project_id)!);
        for (const name of eventNamesIn(condition, contexts.get(exec.project_id)!)) names.add(name);
      } catch (err) {
        if (err instanceof FilterError) prepared.set(exec.id, err);
        else throw err;
      }
    }
    const contactIds = [...new Set(pending.map((p) => p.exec.contact_id))];
    const [events, memberships] = await Promise.all([eventsOfContacts(this.ctx.db, contactIds, [...names]), membershipsOf(this.ctx.db, contactIds)]);
    for (const { exec } of pending) {
      if (prepared.has(exec.id)) continue;
      prepared.set(exec.id, {
        filters: contexts.get(exec.project_id)!,
        subject: {
          contact: { email: exec.email, subscribed: exec.subscribed, createdAt: new Date(exec.contact_created_at), data: exec.data },
          events: events.filter((e) => e.contact_id === exec.contact_id).map((e) => ({ name: e.name, createdAt: new Date(e.created_at) })),
          memberOf: new Set(memberships.filter((m) => m.contact_id === exec.contact_id).map((m) => m.segment_id)),
          context: exec.context,
        },
      });
    }
    return prepared;
  }

  private trackWebhook(exec: ClaimedExecution, graph: WorkflowGraph, step: StepRow, now: Date): void {
    const run = (async () => {
      const result = await this.runStep(exec, graph, step, new Map(), now);
      await this.write([outcome(exec, graph, step, result, this.ctx.clock.now())]);
    })().catch((err) => this.ctx.log.error({ err, executionId: exec.id }, 'running a webhook step failed'));
    this.webhooks.add(run);
    void run.finally(() => this.webhooks.delete(run));
  }

  /**
   * Stores a batch of outcomes in one transaction. Contact changes go through the contacts
   * service (the `data` rules, field types, subscription events) only for executions that moved.
   */
  private async write(outcomes: Outcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const now = this.ctx.clock.now();
    let moved = new Set<string>();
    try {
      await this.ctx.db.transaction(async (tx) => {
        const emails = outcomes.flatMap((o) => (o.email ? [o.email] : []));
        moved = await repo.writeOutcomes(tx, outcomes.map((o) => o.write), emails, now);
        for (const o of outcomes) {
          if (!o.contactUpdate || !moved.has(o.write.id)) continue;
          const { projectId, contactId, patch, subscribed } = o.contactUpdate;
          await changeContact(this.ctx, tx, projectId, contactId, { patch, subscribed, source: 'workflow' }, now);
        }
        if (outcomes.some((o) => o.email && moved.has(o.write.id))) await notify(tx, EMAILS_CHANNEL);
      });
    } catch (err) {
      // The claims stay leased: the executions run again when their lease ends.
      this.ctx.log.error({ err }, 'writing workflow outcomes failed');
      return;
    }
    for (const o of outcomes) this.held.delete(o.write.id);
    // Executions that moved on to a step due now are claimed in the next round, without waiting for the poll.
    if (outcomes.some((o) => o.write.status === 'running' && !o.write.retry && moved.has(o.write.id))) this.poll.wake();
  }
}

/** The row write (and effects) of a step's result: where the execution goes next, per the graph. */
function outcome(
  exec: ClaimedExecution,
  graph: WorkflowGraph | null,
  step: StepRow | null,
  result: StepResult,
  now: Date,
): Outcome {
  const at = now.toISOString();
  // A delay or wait that ends now started when the execution began waiting.
  const startedAt = exec.status === 'waiting' && exec.wait_started_at ? new Date(exec.wait_started_at).toISOString() : at;
  const base: ExecutionWrite = {
    id: exec.id,
    seq: exec.step_seq,
    status: 'running',
    stepId: exec.current_step_id,
    nextRunAt: null,
    waitEvent: null,
    waitStartedAt: null,
    retry: false,
    error: null,
    finished: false,
    history: null,
    emailId: null,
  };
  const history = (status: 'completed' | 'failed', extra: { branch?: Branch | null; output?: Record<string, unknown>; error?: string }) =>
    step && { step_id: step.id, step_type: step.type, status, branch: extra.branch ?? null, output: extra.output ?? null, error: extra.error ?? null, started_at: startedAt };
  switch (result.kind) {
    case 'next': {
      const next = graph && step ? nextStep(graph.transitions, step.id, result.branch) : null;
      return {
        write: {
          ...base,
          status: next ? 'running' : 'completed',
          stepId: next,
          nextRunAt: next ? at : null,
          finished: !next,
          history: history('completed', { branch: result.branch, output: result.output }),
          emailId: result.email?.id ?? null,
        },
        email: result.email,
        contactUpdate: result.contactUpdate && { ...result.contactUpdate, projectId: exec.project_id, contactId: exec.contact_id },
      };
    }
    case 'wait':
      return { write: { ...base, status: 'waiting', nextRunAt: result.until.toISOString(), waitEvent: result.event, waitStartedAt: at } };
    case 'exit':
      return { write: { ...base, status: 'exited', stepId: null, finished: true, history: history('completed', {}) } };
    case 'fail':
      return { write: { ...base, status: 'failed', stepId: null, finished: true, error: result.error, history: history('failed', { error: result.error }) } };
    case 'retry':
      return { write: { ...base, nextRunAt: result.at.toISOString(), retry: true, error: result.error } };
  }
}
