import { sql } from 'drizzle-orm';
import type { Branch, StepConfig, StepType } from '../../domain/workflows/step-types.js';
import { type Executor, notify, run } from '../../platform/db/client.js';
import type { TriggerType } from './schemas.js';

/** Every query on the definition tables (workflows, steps, transitions) lives here. */

/** Any change to a workflow, its steps or transitions: processes drop their cached graphs and triggers. */
export const WORKFLOWS_CHANNEL = 'workflows_changed';

export const announceChange = (ex: Executor) => notify(ex, WORKFLOWS_CHANNEL, '');

export interface WorkflowRow {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  trigger_type: TriggerType;
  trigger_config: Record<string, unknown>;
  enabled: boolean;
  allow_reentry: boolean;
  signing_secret: string;
  created_at: Date;
  updated_at: Date;
}

export interface StepRow {
  id: string;
  workflow_id: string;
  type: StepType;
  name: string | null;
  /** Checked against its type's schema when stored. */
  config: StepConfig<StepType>;
  position: { x: number; y: number } | null;
  created_at: Date;
  updated_at: Date;
}

export interface TransitionRow {
  id: string;
  workflow_id: string;
  from_step_id: string;
  to_step_id: string;
  branch: Branch | null;
  created_at: Date;
}

// ---------------------------------------------------------------------------------------------
// Workflows

export interface WorkflowValues {
  name: string;
  description: string | null;
  triggerType: TriggerType;
  triggerConfig: Record<string, unknown>;
  enabled: boolean;
  allowReentry: boolean;
}

export async function insertWorkflow(
  ex: Executor,
  projectId: string,
  v: WorkflowValues,
  secret: string,
  now: Date,
): Promise<WorkflowRow> {
  const r = await run<WorkflowRow>(
    ex,
    sql`
    insert into workflows (project_id, name, description, trigger_type, trigger_config, enabled, allow_reentry,
      signing_secret, created_at, updated_at)
    values (${projectId}, ${v.name}, ${v.description}, ${v.triggerType}, ${JSON.stringify(v.triggerConfig)}::jsonb,
      ${v.enabled}, ${v.allowReentry}, ${secret}, ${now}, ${now})
    returning *`,
  );
  return r.rows[0]!;
}

export async function findWorkflow(
  ex: Executor,
  projectId: string,
  id: string,
  lock = false,
): Promise<WorkflowRow | null> {
  const r = await run<WorkflowRow>(
    ex,
    sql`
    select * from workflows where project_id = ${projectId} and id = ${id} ${lock ? sql`for update` : sql``}`,
  );
  return r.rows[0] ?? null;
}

export async function workflowById(ex: Executor, id: string): Promise<WorkflowRow | null> {
  const r = await run<WorkflowRow>(ex, sql`select * from workflows where id = ${id}`);
  return r.rows[0] ?? null;
}

export async function listWorkflows(ex: Executor, projectId: string): Promise<WorkflowRow[]> {
  const r = await run<WorkflowRow>(
    ex,
    sql`select * from workflows where project_id = ${projectId} order by created_at desc, id desc`,
  );
  return r.rows;
}

export async function updateWorkflow(ex: Executor, id: string, v: WorkflowValues, now: Date): Promise<WorkflowRow> {
  const r = await run<WorkflowRow>(
    ex,
    sql`
    update workflows set name = ${v.name}, description = ${v.description}, trigger_type = ${v.triggerType},
      trigger_config = ${JSON.stringify(v.triggerConfig)}::jsonb, enabled = ${v.enabled},
      allow_reentry = ${v.allowReentry}, updated_at = ${now}
    where id = ${id}
    returning *`,
  );
  return r.rows[0]!;
}

export async function deleteWorkflow(ex: Executor, id: string): Promise<void> {
  await run(ex, sql`delete from workflows where id = ${id}`);
}

/**
 * True for a stored event (the alias `ev`) that workflows have work for: an enabled workflow it
 * triggers, or an execution of its contact waiting for it.
 */
export const WORKFLOWS_WANT_EVENT = sql`(exists (select 1 from workflows wf
    where wf.project_id = ev.project_id and wf.enabled and wf.trigger_type = 'EVENT'
      and wf.trigger_config ->> 'event' = ev.name)
  or exists (select 1 from workflow_executions x
    where x.contact_id = ev.contact_id and x.status = 'waiting' and x.wait_event is not null and x.wait_event = ev.name))`;

/** Enabled EVENT workflows of a project with their trigger event, for starting executions. */
export async function enabledEventWorkflows(ex: Executor, projectId: string): Promise<WorkflowRow[]> {
  const r = await run<WorkflowRow>(
    ex,
    sql`
    select * from workflows where project_id = ${projectId} and enabled and trigger_type = 'EVENT'`,
  );
  return r.rows;
}

// ---------------------------------------------------------------------------------------------
// Steps and transitions

export async function workflowSteps(ex: Executor, workflowId: string): Promise<StepRow[]> {
  const r = await run<StepRow>(
    ex,
    sql`select * from workflow_steps where workflow_id = ${workflowId} order by created_at, id`,
  );
  return r.rows;
}

export async function workflowTransitions(ex: Executor, workflowId: string): Promise<TransitionRow[]> {
  const r = await run<TransitionRow>(
    ex,
    sql`select * from workflow_transitions where workflow_id = ${workflowId} order by created_at, id`,
  );
  return r.rows;
}

export async function insertStep(
  ex: Executor,
  workflowId: string,
  v: { type: StepType; name: string | null; config: unknown; position: { x: number; y: number } | null },
  now: Date,
): Promise<StepRow> {
  const r = await run<StepRow>(
    ex,
    sql`
    insert into workflow_steps (workflow_id, type, name, config, position, created_at, updated_at)
    values (${workflowId}, ${v.type}, ${v.name}, ${JSON.stringify(v.config)}::jsonb,
      ${v.position === null ? null : JSON.stringify(v.position)}::jsonb, ${now}, ${now})
    returning *`,
  );
  return r.rows[0]!;
}

export async function updateStep(
  ex: Executor,
  id: string,
  v: { name: string | null; config: unknown; position: { x: number; y: number } | null },
  now: Date,
): Promise<StepRow> {
  const r = await run<StepRow>(
    ex,
    sql`
    update workflow_steps set name = ${v.name}, config = ${JSON.stringify(v.config)}::jsonb,
      position = ${v.position === null ? null : JSON.stringify(v.position)}::jsonb, updated_at = ${now}
    where id = ${id}
    returning *`,
  );
  return r.rows[0]!;
}

export async function deleteStep(ex: Executor, id: string): Promise<void> {
  await run(ex, sql`delete from workflow_steps where id = ${id}`);
}

export async function insertTransition(
  ex: Executor,
  workflowId: string,
  v: { from: string; to: string; branch: Branch | null },
  now: Date,
): Promise<TransitionRow> {
  const r = await run<TransitionRow>(
    ex,
    sql`
    insert into workflow_transitions (workflow_id, from_step_id, to_step_id, branch, created_at)
    values (${workflowId}, ${v.from}, ${v.to}, ${v.branch}, ${now})
    returning *`,
  );
  return r.rows[0]!;
}

export async function retargetTransition(ex: Executor, id: string, to: string): Promise<void> {
  await run(ex, sql`update workflow_transitions set to_step_id = ${to} where id = ${id}`);
}

export async function deleteTransition(ex: Executor, id: string): Promise<void> {
  await run(ex, sql`delete from workflow_transitions where id = ${id}`);
}

/** Touches the workflow's `updated_at`, for changes to its steps and transitions. */
export async function touchWorkflow(ex: Executor, id: string, now: Date): Promise<void> {
  await run(ex, sql`update workflows set updated_at = ${now} where id = ${id}`);
}

/** Copies a workflow's steps and transitions to another (new ids); used by duplicate. */
export async function copyGraph(ex: Executor, fromId: string, toId: string, now: Date): Promise<void> {
  await run(
    ex,
    sql`
    with ids as (
      select id as old_id, gen_random_uuid() as new_id, type, name, config, position, created_at
      from workflow_steps where workflow_id = ${fromId}),
    copied as (
      insert into workflow_steps (id, workflow_id, type, name, config, position, created_at, updated_at)
      select new_id, ${toId}, type, name, config, position, created_at, ${now} from ids)
    insert into workflow_transitions (workflow_id, from_step_id, to_step_id, branch, created_at)
    select ${toId}, f.new_id, t2.new_id, t.branch, t.created_at
    from workflow_transitions t join ids f on f.old_id = t.from_step_id join ids t2 on t2.old_id = t.to_step_id
    where t.workflow_id = ${fromId}`,
  );
}
