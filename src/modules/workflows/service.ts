import { iso } from '../../domain/formats.js';
import { type GraphFault, graphFaults, spliceChanges, transitionFault } from '../../domain/workflows/graph-rules.js';
import type { Branch } from '../../domain/workflows/step-types.js';
import { STEP_TYPE_SPECS, type StepConfig, type StepType, stepReferences } from '../../domain/workflows/step-types.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor, Tx } from '../../platform/db/client.js';
import { AppError, fieldErrorsFromIssues, notFound, validationError } from '../../platform/http/errors.js';
import type { UsageRegistry } from '../../platform/usage.js';
import { newSigningSecret } from '../../platform/webhook.js';
import * as audit from '../audit/service.js';
import { listFields } from '../contacts/fields.js';
import { eventDataFields, eventNames } from '../events/service.js';
import type { ExecutionRow, HistoryRow } from './executions-repo.js';
import * as executions from './executions-repo.js';
import { loadGraph } from './graph-cache.js';
import type { StepRow, TransitionRow, WorkflowRow } from './repo.js';
import * as repo from './repo.js';
import { type TriggerType, triggerConfigSchemas } from './schemas.js';
import { stepHandler } from './step-handlers.js';

export function toWorkflow(row: WorkflowRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    triggerType: row.trigger_type,
    triggerConfig: row.trigger_config,
    enabled: row.enabled,
    allowReentry: row.allow_reentry,
    signingSecret: row.signing_secret,
    projectId: row.project_id,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function toStep(row: StepRow) {
  return {
    id: row.id,
    workflowId: row.workflow_id,
    type: row.type,
    name: row.name,
    config: row.config,
    position: row.position,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function toTransition(row: TransitionRow) {
  return {
    id: row.id,
    workflowId: row.workflow_id,
    fromStepId: row.from_step_id,
    toStepId: row.to_step_id,
    branch: row.branch,
    createdAt: iso(row.created_at),
  };
}

export function toExecution(row: ExecutionRow) {
  return {
    id: row.id,
    workflowId: row.workflow_id,
    contactId: row.contact_id,
    email: row.email,
    status: row.status,
    context: row.context,
    currentStepId: row.current_step_id,
    waitingFor:
      row.status === 'waiting' && row.next_run_at ? { event: row.wait_event, until: iso(row.next_run_at) } : null,
    attempts: row.attempts,
    lastError: row.last_error,
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
    updatedAt: iso(row.updated_at),
  };
}

export function toHistory(row: HistoryRow) {
  return {
    stepId: row.step_id,
    type: row.step_type,
    status: row.status,
    branch: row.branch,
    output: row.output,
    error: row.error,
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
  };
}

export async function requireWorkflow(ex: Executor, projectId: string, id: string, lock = false): Promise<WorkflowRow> {
  const row = await repo.findWorkflow(ex, projectId, id, lock);
  if (!row) throw notFound('Workflow');
  return row;
}

type WorkflowAudit = Pick<audit.AuditRecord, 'action' | 'changes'> & { target?: audit.AuditRecord['target'] };

/** Every change to a workflow runs here: the row locked, the change, its audit entry, caches told. */
function changeWorkflow<T>(
  ctx: AppContext,
  projectId: string,
  id: string,
  change: (tx: Tx, workflow: WorkflowRow) => Promise<T>,
  entry: (result: T, before: WorkflowRow) => WorkflowAudit,
): Promise<T> {
  return ctx.db.transaction(async (tx) => {
    const workflow = await requireWorkflow(tx, projectId, id, true);
    const result = await change(tx, workflow);
    const { target = { type: 'workflow', id }, ...rest } = entry(result, workflow);
    await audit.record(tx, { projectId, target, ...rest });
    await repo.touchWorkflow(tx, id, ctx.clock.now());
    await repo.announceChange(tx);
    return result;
  });
}

/**
 * Steps and transitions change only while the workflow is disabled, so a running graph never changes shape under new
 * executions.
 */
function requireDisabled(workflow: WorkflowRow): void {
  if (workflow.enabled) {
    throw new AppError(
      409,
      'WORKFLOW_ENABLED',
      'Steps and transitions of an enabled workflow cannot be added or removed',
      {
        suggestion: 'Disable the workflow (PATCH {"enabled": false}), change it, then enable it again.',
      },
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Workflows

export async function createWorkflow(
  ctx: AppContext,
  projectId: string,
  body: { name: string; description?: string | null; triggerConfig?: { event: string }; allowReentry: boolean },
) {
  const now = ctx.clock.now();
  const row = await ctx.db.transaction(async (tx) => {
    const inserted = await repo.insertWorkflow(
      tx,
      projectId,
      {
        name: body.name,
        description: body.description ?? null,
        triggerType: 'EVENT',
        triggerConfig: body.triggerConfig ?? {},
        enabled: false,
        allowReentry: body.allowReentry,
      },
      newSigningSecret(),
      now,
    );
    await audit.record(tx, {
      projectId,
      action: 'workflow.created',
      target: { type: 'workflow', id: inserted.id },
      changes: { name: inserted.name },
    });
    return inserted;
  });
  return toWorkflow(row);
}

export async function listWorkflows(ctx: AppContext, projectId: string) {
  const [rows, active] = await Promise.all([
    repo.listWorkflows(ctx.db, projectId),
    executions.activeByWorkflow(ctx.db, projectId),
  ]);
  return rows.map((row) => ({ ...toWorkflow(row), activeExecutions: active.get(row.id) ?? 0 }));
}

/** A disabled copy named "Copy of …", with the same trigger, steps and transitions and a secret of its own. */
export async function duplicateWorkflow(ctx: AppContext, projectId: string, id: string) {
  const copyId = await ctx.db.transaction(async (tx) => {
    const source = await requireWorkflow(tx, projectId, id);
    const now = ctx.clock.now();
    const copy = await repo.insertWorkflow(
      tx,
      projectId,
      {
        name: `Copy of ${source.name}`.slice(0, 255),
        description: source.description,
        triggerType: source.trigger_type,
        triggerConfig: source.trigger_config,
        enabled: false,
        allowReentry: source.allow_reentry,
      },
      newSigningSecret(),
      now,
    );
    await repo.copyGraph(tx, id, copy.id, now);
    await audit.record(tx, {
      projectId,
      action: 'workflow.created',
      target: { type: 'workflow', id: copy.id },
      changes: { name: copy.name, duplicatedFrom: id },
    });
    return copy.id;
  });
  return getWorkflow(ctx, projectId, copyId);
}

const DAY_MS = 86_400_000;

/**
 * GET /workflows/{id}/stats: per step, the executions at it now; per SEND_EMAIL step, what it sent
 * in the range (by default the last 30 days) and how much of that was opened and clicked.
 */
export async function stepStats(ctx: AppContext, projectId: string, id: string, range: { since?: Date; until?: Date }) {
  await requireWorkflow(ctx.db, projectId, id);
  const until = range.until ?? ctx.clock.now();
  const since = range.since ?? new Date(until.getTime() - 30 * DAY_MS);
  if (since >= until) {
    throw validationError([
      { field: 'since', message: 'since must be before until', code: 'invalid_range', received: iso(since) },
    ]);
  }
  const steps = await repo.workflowSteps(ctx.db, id);
  const sends = steps.filter((s) => s.type === 'SEND_EMAIL').map((s) => s.id);
  const [active, mail] = await Promise.all([
    executions.activeByStep(ctx.db, id),
    executions.stepMailCounts(ctx.db, sends, since, until),
  ]);
  const mailOf = new Map(mail.map((m) => [m.step_id, m]));
  return {
    since: iso(since),
    until: iso(until),
    steps: steps.map((s) => {
      const m = s.type === 'SEND_EMAIL' ? (mailOf.get(s.id) ?? { sent: 0, opened: 0, clicked: 0 }) : null;
      return {
        stepId: s.id,
        type: s.type,
        active: active.get(s.id) ?? 0,
        sent: m?.sent ?? null,
        opened: m?.opened ?? null,
        clicked: m?.clicked ?? null,
      };
    }),
  };
}

export async function getWorkflow(ctx: AppContext, projectId: string, id: string) {
  const row = await requireWorkflow(ctx.db, projectId, id);
  const [steps, transitions, counts] = await Promise.all([
    repo.workflowSteps(ctx.db, id),
    repo.workflowTransitions(ctx.db, id),
    executions.executionCounts(ctx.db, id),
  ]);
  return {
    ...toWorkflow(row),
    steps: steps.map(toStep),
    transitions: transitions.map(toTransition),
    executions: counts,
  };
}

/** The faults of a workflow's graph and trigger: empty when it can run. */
async function runFaults(ex: Executor, workflow: WorkflowRow): Promise<GraphFault[]> {
  const graph = await loadGraph(ex, workflow);
  const faults = graphFaults(
    [...graph.steps.values()].map((s) => ({ id: s.id, type: s.type })),
    graph.transitions,
  );
  if (workflow.trigger_type === 'EVENT' && typeof workflow.trigger_config.event !== 'string') {
    faults.push({
      code: 'no_trigger_event',
      message: 'An EVENT workflow needs triggerConfig.event, the event that starts it',
    });
  }
  return faults;
}

export function faultsError(faults: GraphFault[]): AppError {
  return new AppError(422, 'WORKFLOW_INVALID', 'The workflow cannot run as it is', {
    errors: faults.map((f) => ({
      field: 'graph',
      message: f.message,
      code: f.code,
      ...(f.stepIds ? { received: f.stepIds.join(', ') } : {}),
    })),
    details: { faults },
    suggestion: 'Fix the faults listed in errors, then try again.',
  });
}

export interface WorkflowPatch {
  name?: string;
  description?: string | null;
  triggerType?: TriggerType;
  triggerConfig?: Record<string, unknown>;
  enabled?: boolean;
  allowReentry?: boolean;
}

/**
 * Metadata, trigger and settings. A trigger config is checked against the trigger type the workflow
 * will have (changing the type without a config clears it); enabling checks the whole graph and
 * answers 422 with every fault. Disabling stops new executions; running ones go on.
 */
export async function updateWorkflow(ctx: AppContext, projectId: string, id: string, patch: WorkflowPatch) {
  return changeWorkflow(
    ctx,
    projectId,
    id,
    async (tx, current) => {
      const triggerType = patch.triggerType ?? current.trigger_type;
      let triggerConfig = current.trigger_config;
      if (patch.triggerConfig !== undefined) {
        const parsed = triggerConfigSchemas[triggerType].safeParse(patch.triggerConfig);
        if (!parsed.success)
          throw validationError(fieldErrorsFromIssues(parsed.error.issues, patch.triggerConfig, ['triggerConfig']));
        triggerConfig = parsed.data;
      } else if (triggerType !== current.trigger_type) {
        triggerConfig = {};
      }
      const next = {
        name: patch.name ?? current.name,
        description: patch.description !== undefined ? patch.description : current.description,
        triggerType,
        triggerConfig,
        enabled: patch.enabled ?? current.enabled,
        allowReentry: patch.allowReentry ?? current.allow_reentry,
      };
      const row = await repo.updateWorkflow(tx, id, next, ctx.clock.now());
      if (row.enabled) {
        const faults = await runFaults(tx, row);
        if (faults.length > 0) throw faultsError(faults);
      }
      return toWorkflow(row);
    },
    (_, before) => ({
      action: 'workflow.updated',
      changes: audit.fieldsOf(patch, {
        ...(patch.enabled !== undefined && patch.enabled !== before.enabled
          ? { values: { enabled: [before.enabled, patch.enabled] } }
          : {}),
      }),
    }),
  );
}

/** Refused (409) while executions are running or waiting: cancel them first. */
export async function deleteWorkflow(ctx: AppContext, projectId: string, id: string): Promise<void> {
  await changeWorkflow(
    ctx,
    projectId,
    id,
    async (tx) => {
      const active = await executions.countActiveExecutions(tx, id);
      if (active > 0) {
        throw new AppError(
          409,
          'WORKFLOW_HAS_ACTIVE_EXECUTIONS',
          `${active} executions of this workflow are running or waiting`,
          {
            details: { active },
            suggestion:
              'Cancel them (POST /workflows/{id}/executions/cancel-all) or let them finish, then delete the workflow.',
          },
        );
      }
      await repo.deleteWorkflow(tx, id);
    },
    () => ({ action: 'workflow.deleted' }),
  );
}

// ---------------------------------------------------------------------------------------------
// Steps and transitions

/** A step's config checked against its type's schema, then by its handler against the project. */
async function checkStepConfig(
  ex: Executor,
  projectId: string,
  type: StepType,
  raw: unknown,
  now: Date,
): Promise<StepConfig<StepType>> {
  const parsed = STEP_TYPE_SPECS[type].config.safeParse(raw ?? {});
  if (!parsed.success) throw validationError(fieldErrorsFromIssues(parsed.error.issues, raw, ['config']));
  await stepHandler(type).check?.(ex, projectId, parsed.data, now);
  return parsed.data;
}

export async function addStep(
  ctx: AppContext,
  projectId: string,
  id: string,
  body: { type: StepType; name?: string | null; config?: unknown; position?: { x: number; y: number } | null },
) {
  return changeWorkflow(
    ctx,
    projectId,
    id,
    async (tx, workflow) => {
      requireDisabled(workflow);
      const now = ctx.clock.now();
      const config = await checkStepConfig(tx, projectId, body.type, body.config, now);
      return toStep(
        await repo.insertStep(
          tx,
          id,
          { type: body.type, name: body.name ?? null, config, position: body.position ?? null },
          now,
        ),
      );
    },
    (step) => ({ action: 'workflow.step_added', changes: { stepId: step.id, type: body.type } }),
  );
}

async function requireStep(tx: Executor, workflowId: string, stepId: string): Promise<StepRow> {
  const step = (await repo.workflowSteps(tx, workflowId)).find((s) => s.id === stepId);
  if (!step) throw notFound('Step');
  return step;
}

/** Name, position and config (checked against the step's type); allowed while enabled: the graph keeps its shape. */
export async function updateStep(
  ctx: AppContext,
  projectId: string,
  id: string,
  stepId: string,
  body: { name?: string | null; config?: unknown; position?: { x: number; y: number } | null },
) {
  return changeWorkflow(
    ctx,
    projectId,
    id,
    async (tx) => {
      const step = await requireStep(tx, id, stepId);
      const now = ctx.clock.now();
      const config =
        body.config === undefined ? step.config : await checkStepConfig(tx, projectId, step.type, body.config, now);
      const name = body.name !== undefined ? body.name : step.name;
      const position = body.position !== undefined ? body.position : step.position;
      return toStep(await repo.updateStep(tx, stepId, { name, config, position }, now));
    },
    () => ({ action: 'workflow.step_updated', changes: audit.fieldsOf(body, { stepId }) }),
  );
}

/**
 * Deletes a step and its transitions; with `splice`, the transitions into it are pointed at the step
 * after it. Refused while executions are at the step.
 */
export async function deleteStep(
  ctx: AppContext,
  projectId: string,
  id: string,
  stepId: string,
  splice: boolean,
): Promise<void> {
  await changeWorkflow(
    ctx,
    projectId,
    id,
    async (tx, workflow) => {
      requireDisabled(workflow);
      await requireStep(tx, id, stepId);
      const active = await executions.countActiveExecutions(tx, id, stepId);
      if (active > 0) {
        throw new AppError(409, 'STEP_IN_USE', `${active} executions are at this step`, {
          suggestion: 'Cancel those executions or let them move on, then delete the step.',
        });
      }
      if (splice) {
        const transitions = (await repo.workflowTransitions(tx, id)).map((t) => ({
          id: t.id,
          from: t.from_step_id,
          to: t.to_step_id,
          branch: t.branch,
        }));
        const changes = spliceChanges(transitions, stepId);
        if ('error' in changes) throw new AppError(409, 'CANNOT_SPLICE', changes.error);
        // Removed first: a retargeted transition may take the branch slot of one that goes.
        for (const t of changes.remove) await repo.deleteTransition(tx, t);
        for (const t of changes.retarget) await repo.retargetTransition(tx, t.id, t.to);
      }
      await repo.deleteStep(tx, stepId);
    },
    () => ({ action: 'workflow.step_deleted', changes: { stepId, splice } }),
  );
}

export async function addTransition(
  ctx: AppContext,
  projectId: string,
  id: string,
  body: { fromStepId: string; toStepId: string; branch?: Branch | null },
) {
  return changeWorkflow(
    ctx,
    projectId,
    id,
    async (tx, workflow) => {
      requireDisabled(workflow);
      const [steps, transitions] = await Promise.all([repo.workflowSteps(tx, id), repo.workflowTransitions(tx, id)]);
      const wanted = {
        from: body.fromStepId.toLowerCase(),
        to: body.toStepId.toLowerCase(),
        branch: body.branch ?? null,
      };
      const fault = transitionFault(
        steps.map((s) => ({ id: s.id, type: s.type })),
        transitions.map((t) => ({ id: t.id, from: t.from_step_id, to: t.to_step_id, branch: t.branch })),
        wanted,
      );
      if (fault?.code === 'exists')
        throw new AppError(409, 'TRANSITION_EXISTS', fault.message, {
          details: { fromStepId: wanted.from, branch: wanted.branch },
        });
      if (fault) throw validationError([{ field: fault.field, message: fault.message, code: fault.code }]);
      return toTransition(
        await repo.insertTransition(tx, id, { ...wanted, branch: wanted.branch as Branch | null }, ctx.clock.now()),
      );
    },
    (t) => ({
      action: 'workflow.transition_added',
      changes: {
        transitionId: t.id,
        fromStepId: body.fromStepId,
        toStepId: body.toStepId,
        branch: body.branch ?? null,
      },
    }),
  );
}

export async function deleteTransition(
  ctx: AppContext,
  projectId: string,
  id: string,
  transitionId: string,
): Promise<void> {
  await changeWorkflow(
    ctx,
    projectId,
    id,
    async (tx, workflow) => {
      requireDisabled(workflow);
      if (!(await repo.workflowTransitions(tx, id)).some((t) => t.id === transitionId)) throw notFound('Transition');
      await repo.deleteTransition(tx, transitionId);
    },
    () => ({ action: 'workflow.transition_deleted', changes: { transitionId } }),
  );
}

/**
 * Fields a CONDITION step can filter on; with `event` (a workflow's trigger event), also the
 * `context.event.data.<key>` values its executions hold, typed from that event's latest occurrences.
 */
export async function workflowFields(ctx: AppContext, projectId: string, event?: string) {
  const [{ fields }, events, eventData] = await Promise.all([
    listFields(ctx, projectId),
    eventNames(ctx, projectId),
    event ? eventDataFields(ctx, projectId, event) : [],
  ]);
  return {
    fields: fields.map(({ field, type, isCustom }) => ({ field, type, isCustom })),
    events: events.names,
    context: eventData.map(({ key, type }) => ({ field: `context.event.data.${key}`, type })),
  };
}

// ---------------------------------------------------------------------------------------------
// Usage

/**
 * Workflows reference events by their trigger, and fields, events and templates by their steps'
 * configs (`references` in the step-type table).
 */
export function registerWorkflowUsage(usage: UsageRegistry): void {
  const finder =
    (uses: (step: StepRow | null, workflow: WorkflowRow, name: string) => boolean) =>
    async (ex: Executor, projectId: string, name: string) => {
      const found = [];
      for (const workflow of await repo.listWorkflows(ex, projectId)) {
        const steps = await repo.workflowSteps(ex, workflow.id);
        if (uses(null, workflow, name) || steps.some((s) => uses(s, workflow, name)))
          found.push({ id: workflow.id, name: workflow.name });
      }
      return found;
    };
  const refs = (step: StepRow) => stepReferences(step.type, step.config);
  usage.register(
    'field',
    'workflows',
    finder((step, _w, name) => (step ? refs(step).fields.some((f) => f === name || f.startsWith(`${name}.`)) : false)),
  );
  usage.register(
    'event',
    'workflows',
    finder((step, workflow, name) =>
      step === null
        ? workflow.trigger_type === 'EVENT' && workflow.trigger_config.event === name
        : refs(step).events.includes(name),
    ),
  );
  usage.register(
    'template',
    'workflows',
    finder((step, _w, id) => (step ? refs(step).templates.includes(id) : false)),
  );
}
