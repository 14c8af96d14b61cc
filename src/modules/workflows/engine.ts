/**
 * Runs workflow executions. An execution row is its own durable job: the engine claims due rows in
 * batches under a lease (SKIP LOCKED, so any number of workers share the work), runs each one's
 * current step, and writes the batch's outcomes back in one transaction. A write moves an execution
 * only if it is still where it was claimed (`step_seq` unchanged, still active), and stores the
 * step's history row, email and contact change only for executions it moved: a step whose claim
 * expired and was taken by another worker, or that was cancelled meanwhile, changes nothing.
 *
 * Delays and waits are rows with a future `next_run_at`, so they survive restarts; an event a
 * WAIT_FOR_EVENT step waits for makes its execution due at once (triggers.ts). How each step type
 * runs is its handler (step-handlers.ts); WEBHOOK steps run outside the batch, so a slow endpoint
 * never holds up the other executions.
 */
import { backoffMs } from '../../domain/formats.js';
import { nextStep } from '../../domain/workflows/graph-rules.js';
import type { Branch, StepConfig, StepType } from '../../domain/workflows/step-types.js';
import type { AppContext } from '../../platform/context.js';
import { notify } from '../../platform/db/client.js';
import { PollingLoop } from '../../platform/polling.js';
import { changeContact } from '../contacts/service.js';
import { EMAILS_CHANNEL, type NewEmail } from '../emails/service.js';
import type { ClaimedExecution, ExecutionWrite } from './executions-repo.js';
import * as executions from './executions-repo.js';
import { cachedGraph, type WorkflowGraph } from './graph-cache.js';
import type { StepRow } from './repo.js';
import { type ContactUpdate, type StepResult, stepHandler } from './step-handlers.js';

export interface WorkflowEngineOptions {
  /** Executions claimed per round. */
  batch: number;
  /**
   * How long a claimed execution stays with this worker while it lives (one whose process is gone
   * is taken over at once); longer than a webhook's timeout.
   */
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
  private readonly loop = new PollingLoop({
    intervalMs: 250,
    round: () => this.round(),
    onError: (err) => this.ctx.log.error({ err }, 'running workflow steps failed'),
  });
  private unlisten?: () => Promise<void>;
  /** The write of the last batch's outcomes: writes stay one at a time, in order. */
  private writing: Promise<void> = Promise.resolve();
  /** Claimed and not yet written back: released at stop so another worker takes them at once. */
  private readonly held = new Set<string>();

  constructor(
    private readonly ctx: AppContext,
    private readonly options: WorkflowEngineOptions,
  ) {}

  async start(): Promise<void> {
    this.unlisten = await this.ctx.database.listen(executions.EXECUTIONS_CHANNEL, () => this.loop.wake());
    this.loop.start();
  }

  /** Waits for the current round and its write, and up to STOP_DRAIN_MS for webhook steps under way. */
  async stop(): Promise<void> {
    await this.loop.stop(STOP_DRAIN_MS);
    await this.writing;
    await executions.releaseExecutions(this.ctx.db, [...this.held]).catch(() => {});
    await this.unlisten?.();
  }

  /**
   * Claims a batch, runs its steps, and hands the outcomes to the writer; while one batch's outcomes
   * are being written, the next batch is claimed and run.
   */
  private async round(): Promise<boolean> {
    const now = this.ctx.clock.now();
    const claimed = await executions.claimDueExecutions(
      this.ctx.db,
      this.ctx.database.processKey,
      now,
      new Date(now.getTime() + this.options.leaseMs),
      this.options.batch,
    );
    for (const exec of claimed) this.held.add(exec.id);
    if (claimed.length > 0) {
      const outcomes = await this.runBatch(claimed);
      await this.writing;
      this.writing = this.write(outcomes);
    }
    return claimed.length === this.options.batch;
  }

  private async runBatch(claimed: ClaimedExecution[]): Promise<Outcome[]> {
    const now = this.ctx.clock.now();
    const graphs = new Map<string, WorkflowGraph | null>();
    for (const id of new Set(claimed.map((e) => e.workflow_id))) graphs.set(id, await cachedGraph(this.ctx, id));
    const placed = claimed.map((exec) => {
      const graph = graphs.get(exec.workflow_id) ?? null;
      return { exec, graph, step: graph && exec.current_step_id ? graph.steps.get(exec.current_step_id) : undefined };
    });
    const prepared = await this.prepare(placed, now);
    const outcomes: Outcome[] = [];
    for (const { exec, graph, step } of placed) {
      if (!graph || !step) {
        outcomes.push(
          outcome(exec, graph, null, { kind: 'fail', error: 'The step this execution was at no longer exists' }, now),
        );
      } else if (stepHandler(step.type).background && exec.status === 'running') {
        this.runInBackground(exec, graph, step, now);
      } else {
        outcomes.push(
          outcome(exec, graph, step, await this.runStep(exec, graph, step, prepared.get(exec.id), now), now),
        );
      }
    }
    return outcomes;
  }

  /** What the batch's running steps need loaded first, by execution id, from their handlers' `prepare`. */
  private async prepare(
    placed: { exec: ClaimedExecution; step?: StepRow }[],
    now: Date,
  ): Promise<Map<string, unknown>> {
    const claimsByType = new Map<StepType, { exec: ClaimedExecution; config: StepConfig<StepType> }[]>();
    for (const { exec, step } of placed) {
      if (!step || exec.status !== 'running' || !stepHandler(step.type).prepare) continue;
      claimsByType.set(step.type, [...(claimsByType.get(step.type) ?? []), { exec, config: step.config }]);
    }
    const prepared = new Map<string, unknown>();
    for (const [type, claims] of claimsByType) {
      for (const [id, value] of await stepHandler(type).prepare!(this.ctx, claims, now)) prepared.set(id, value);
    }
    return prepared;
  }

  private async runStep(
    exec: ClaimedExecution,
    graph: WorkflowGraph,
    step: StepRow,
    prepared: unknown,
    now: Date,
  ): Promise<StepResult> {
    if (exec.attempts > MAX_CLAIMS)
      return { kind: 'fail', error: `The ${step.type} step was tried ${MAX_CLAIMS} times without finishing` };
    if (prepared instanceof Error) return { kind: 'fail', error: prepared.message };
    const input = { exec, step, config: step.config, signingSecret: graph.workflow.signing_secret, now };
    try {
      return await stepHandler(step.type).run(this.ctx, input, prepared);
    } catch (err) {
      this.ctx.log.warn({ err, executionId: exec.id, stepId: step.id }, 'a workflow step failed');
      const error = err instanceof Error ? err.message : String(err);
      return exec.attempts >= MAX_CLAIMS
        ? { kind: 'fail', error }
        : { kind: 'retry', error, at: new Date(now.getTime() + backoffMs(exec.attempts, RETRY_BASE_MS)) };
    }
  }

  private runInBackground(exec: ClaimedExecution, graph: WorkflowGraph, step: StepRow, now: Date): void {
    const run = (async () => {
      const result = await this.runStep(exec, graph, step, undefined, now);
      await this.write([outcome(exec, graph, step, result, this.ctx.clock.now())]);
    })().catch((err) => this.ctx.log.error({ err, executionId: exec.id }, `running a ${step.type} step failed`));
    this.loop.track(run);
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
        moved = await executions.writeOutcomes(
          tx,
          outcomes.map((o) => o.write),
          emails,
          now,
        );
        for (const o of outcomes) {
          if (!o.contactUpdate || !moved.has(o.write.id)) continue;
          const { projectId, contactId, patch, subscribed, topics } = o.contactUpdate;
          const consent = { sourceId: o.write.id };
          await changeContact(
            this.ctx,
            tx,
            projectId,
            contactId,
            { patch, subscribed, topics, source: 'workflow', consent },
            now,
          );
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
    if (outcomes.some((o) => o.write.status === 'running' && !o.write.retry && moved.has(o.write.id))) this.loop.wake();
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
  const startedAt =
    exec.status === 'waiting' && exec.wait_started_at ? new Date(exec.wait_started_at).toISOString() : at;
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
  const history = (
    status: 'completed' | 'failed',
    extra: { branch?: Branch | null; output?: Record<string, unknown>; error?: string },
  ) =>
    step && {
      step_id: step.id,
      step_type: step.type,
      status,
      branch: extra.branch ?? null,
      output: extra.output ?? null,
      error: extra.error ?? null,
      started_at: startedAt,
    };
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
        contactUpdate: result.contactUpdate && {
          ...result.contactUpdate,
          projectId: exec.project_id,
          contactId: exec.contact_id,
        },
      };
    }
    case 'wait':
      return {
        write: {
          ...base,
          status: 'waiting',
          nextRunAt: result.until.toISOString(),
          waitEvent: result.event,
          waitStartedAt: at,
        },
      };
    case 'exit':
      return { write: { ...base, status: 'exited', stepId: null, finished: true, history: history('completed', {}) } };
    case 'fail':
      return {
        write: {
          ...base,
          status: 'failed',
          stepId: null,
          finished: true,
          error: result.error,
          history: history('failed', { error: result.error }),
        },
      };
    case 'retry':
      return { write: { ...base, nextRunAt: result.at.toISOString(), retry: true, error: result.error } };
  }
}
