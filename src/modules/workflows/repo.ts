import { type SQL, sql } from 'drizzle-orm';
import type { Branch, StepConfig, StepType } from '../../domain/workflows/step-types.js';
import { type Executor, notify, ownerGone, run } from '../../platform/db/client.js';
import type { CursorValue } from '../../platform/http/pagination.js';
import { type NewEmail, storeEmailsWith } from '../emails/service.js';
import type { ExecutionStatus, TriggerType } from './schemas.js';

/** Every query on the workflow tables lives here. */

/** Any change to a workflow, its steps or transitions: processes drop their cached graphs and triggers. */
export const WORKFLOWS_CHANNEL = 'workflows_changed';
/** Executions became due: the engines look at once instead of at their next poll. */
export const EXECUTIONS_CHANNEL = 'workflow_executions_due';

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

export interface ExecutionRow {
  id: string;
  project_id: string;
  workflow_id: string;
  contact_id: string;
  status: ExecutionStatus;
  context: Record<string, unknown>;
  current_step_id: string | null;
  step_seq: number;
  next_run_at: Date | null;
  wait_event: string | null;
  wait_arrived: boolean;
  wait_started_at: Date | null;
  attempts: number;
  last_error: string | null;
  started_at: Date;
  finished_at: Date | null;
  updated_at: Date;
  /** The contact's address (read with the execution by the API). */
  email: string;
}

export interface HistoryRow {
  step_id: string;
  step_type: StepType;
  status: 'completed' | 'failed';
  branch: Branch | null;
  output: Record<string, unknown> | null;
  error: string | null;
  started_at: Date;
  finished_at: Date;
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

/** Enabled EVENT workflows of a project with their trigger event, for starting executions. */
/**
 * True for a stored event (the alias `ev`) that workflows have work for: an enabled workflow it
 * triggers, or an execution of its contact waiting for it.
 */
export const WORKFLOWS_WANT_EVENT = sql`(exists (select 1 from workflows wf
    where wf.project_id = ev.project_id and wf.enabled and wf.trigger_type = 'EVENT'
      and wf.trigger_config ->> 'event' = ev.name)
  or exists (select 1 from workflow_executions x
    where x.contact_id = ev.contact_id and x.status = 'waiting' and x.wait_event is not null and x.wait_event = ev.name))`;

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

// ---------------------------------------------------------------------------------------------
// Executions: the API side

const ACTIVE = sql`status in ('running', 'waiting')`;

export async function countActiveExecutions(ex: Executor, workflowId: string, stepId?: string): Promise<number> {
  const r = await run<{ n: number }>(
    ex,
    sql`
    select count(*)::int as n from workflow_executions
    where workflow_id = ${workflowId} and ${ACTIVE} ${stepId ? sql`and current_step_id = ${stepId}` : sql``}`,
  );
  return r.rows[0]!.n;
}

export async function executionCounts(ex: Executor, workflowId: string): Promise<Record<string, number>> {
  const r = await run<{ status: string; n: number }>(
    ex,
    sql`
    select status, count(*)::int as n from workflow_executions where workflow_id = ${workflowId} group by status`,
  );
  return Object.fromEntries(r.rows.map((row) => [row.status, row.n]));
}

/** Running and waiting executions per workflow of the project (only workflows that have some). */
export async function activeByWorkflow(ex: Executor, projectId: string): Promise<Map<string, number>> {
  const r = await run<{ workflow_id: string; n: number }>(
    ex,
    sql`
    select workflow_id, count(*)::int as n from workflow_executions
    where project_id = ${projectId} and ${ACTIVE} group by workflow_id`,
  );
  return new Map(r.rows.map((row) => [row.workflow_id, row.n]));
}

/** Running and waiting executions per step they are at. */
export async function activeByStep(ex: Executor, workflowId: string): Promise<Map<string, number>> {
  const r = await run<{ step_id: string; n: number }>(
    ex,
    sql`
    select current_step_id as step_id, count(*)::int as n from workflow_executions
    where workflow_id = ${workflowId} and ${ACTIVE} and current_step_id is not null group by current_step_id`,
  );
  return new Map(r.rows.map((row) => [row.step_id, row.n]));
}

export interface StepMailCounts {
  step_id: string;
  sent: number;
  opened: number;
  clicked: number;
}

/**
 * What the given SEND_EMAIL steps sent between `since` and `until` (by when the step ran), and how
 * many of those emails were opened and clicked since: each step's history joined to its emails.
 */
export async function stepMailCounts(
  ex: Executor,
  stepIds: string[],
  since: Date,
  until: Date,
): Promise<StepMailCounts[]> {
  if (stepIds.length === 0) return [];
  const r = await run<StepMailCounts>(
    ex,
    sql`
    select h.step_id,
      count(*) filter (where e.sent_at is not null)::int as sent,
      count(*) filter (where e.opened_at is not null)::int as opened,
      count(*) filter (where e.clicked_at is not null)::int as clicked
    from workflow_execution_steps h
    join emails e on e.id = (h.output->>'emailId')::uuid
    where h.step_id in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(stepIds)}::jsonb)) and h.status = 'completed'
      and h.finished_at >= ${since} and h.finished_at < ${until}
    group by h.step_id`,
  );
  return r.rows;
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

export interface NewExecution {
  workflowId: string;
  contactId: string;
  entryStepId: string;
  context: Record<string, unknown>;
  /** Start only if the contact never started this workflow. */
  once: boolean;
}

/**
 * The CTE `started`: executions inserted at their entry step, due now. A workflow that does not
 * allow re-entry is started at most once per contact, even by concurrent writers and by two starts
 * in one statement (the `once` key is unique per workflow and contact).
 */
function startExecutionsCte(starts: (NewExecution & { projectId: string })[], now: Date): SQL {
  return sql`started as (
    insert into workflow_executions (project_id, workflow_id, contact_id, status, context, current_step_id, next_run_at,
      entry_key, started_at, updated_at)
    select s."projectId", s."workflowId", s."contactId", 'running', s.context, s."entryStepId", ${now}::timestamptz,
      case when s.once then 'once' end, ${now}::timestamptz, ${now}::timestamptz
    from jsonb_to_recordset(${JSON.stringify(starts)}::jsonb)
      as s("projectId" uuid, "workflowId" uuid, "contactId" uuid, "entryStepId" uuid, context jsonb, once boolean)
    -- offset 0: probed per start through the contact's index, never hashed from the whole table
    where not s.once or not exists (
      select 1 from workflow_executions x where x.workflow_id = s."workflowId"
        and x.contact_id = s."contactId" offset 0)
    on conflict do nothing
    returning id)`;
}

export async function startExecution(
  ex: Executor,
  projectId: string,
  start: NewExecution,
  now: Date,
): Promise<ExecutionRow | null> {
  const r = await run<{ id: string }>(
    ex,
    sql`
    with ${startExecutionsCte([{ ...start, projectId }], now)}
    select id, pg_notify(${EXECUTIONS_CHANNEL}, '') from started`,
  );
  const id = r.rows[0]?.id;
  return id ? findExecution(ex, start.workflowId, id) : null;
}

export interface AppliedEvent {
  contactId: string;
  name: string;
  createdAt: Date;
}

/**
 * What a batch of stored events does to workflows, in one statement: executions of the events'
 * contacts waiting for one of them (since before it happened) are marked arrived and due now; and
 * the workflows they trigger start for their contacts (`starts`, in the events' order). The effect
 * is that of applying the events one by one: an execution started here is running, not waiting, so
 * no event of the batch resumes it; a contact reaching a workflow twice in the batch starts it once
 * unless it allows re-entry. Wakes the engines when anything became due.
 */
export async function applyEvents(
  ex: Executor,
  events: AppliedEvent[],
  starts: (NewExecution & { projectId: string })[],
  now: Date,
): Promise<void> {
  if (events.length === 0 && starts.length === 0) return;
  const arrived = events.map((e) => ({ contactId: e.contactId, name: e.name, createdAt: e.createdAt.toISOString() }));
  await run(
    ex,
    sql`
    with arrived as (
      select * from jsonb_to_recordset(${JSON.stringify(arrived)}::jsonb)
        as e("contactId" uuid, name text, "createdAt" timestamptz)),
    resumed as (
      update workflow_executions x set wait_arrived = true, next_run_at = ${now}, step_seq = x.step_seq + 1,
        updated_at = ${now}
      from arrived e
      where x.contact_id = any((select array_agg("contactId") from arrived)::uuid[])
        and x.contact_id = e."contactId" and x.status = 'waiting' and x.wait_event is not null and x.wait_event = e.name
        and x.wait_started_at <= e."createdAt" and x.next_run_at > e."createdAt"
        and (x.locked_until is null or x.locked_until <= ${now})
      returning 1),
    ${startExecutionsCte(starts, now)}
    select case when exists (select 1 from resumed) or exists (select 1 from started)
      then pg_notify(${EXECUTIONS_CHANNEL}, '') end`,
  );
}

export async function findExecution(ex: Executor, workflowId: string, id: string): Promise<ExecutionRow | null> {
  const r = await run<ExecutionRow>(
    ex,
    sql`
    select x.*, c.email from workflow_executions x join contacts c on c.id = x.contact_id
    where x.workflow_id = ${workflowId} and x.id = ${id}`,
  );
  return r.rows[0] ?? null;
}

export async function executionHistory(ex: Executor, executionId: string): Promise<HistoryRow[]> {
  const r = await run<HistoryRow>(
    ex,
    sql`
    select step_id, step_type, status, branch, output, error, started_at, finished_at
    from workflow_execution_steps where execution_id = ${executionId} order by id`,
  );
  return r.rows;
}

export interface ExecutionFilter {
  workflowId: string;
  status?: ExecutionStatus;
  /** Only this contact's executions. */
  contactId?: string;
}

function executionWhere(q: ExecutionFilter): SQL[] {
  const where: SQL[] = [sql`x.workflow_id = ${q.workflowId}`];
  if (q.status) where.push(sql`x.status = ${q.status}`);
  if (q.contactId) where.push(sql`x.contact_id = ${q.contactId}`);
  return where;
}

export async function listExecutions(
  ex: Executor,
  q: ExecutionFilter & { after?: CursorValue[]; limit: number },
): Promise<ExecutionRow[]> {
  const where = executionWhere(q);
  if (q.after) where.push(sql`(x.started_at, x.id) < (${q.after[0]}::timestamptz, ${q.after[1]}::uuid)`);
  const r = await run<ExecutionRow>(
    ex,
    sql`
    select x.*, c.email from workflow_executions x join contacts c on c.id = x.contact_id
    where ${sql.join(where, sql` and `)}
    order by x.started_at desc, x.id desc limit ${q.limit}`,
  );
  return r.rows;
}

export async function countExecutions(ex: Executor, q: ExecutionFilter): Promise<number> {
  const r = await run<{ n: number }>(
    ex,
    sql`select count(*)::int as n from workflow_executions x where ${sql.join(executionWhere(q), sql` and `)}`,
  );
  return r.rows[0]!.n;
}

/** Cancels running and waiting executions (one, or all of the workflow); returns the ids cancelled. */
export async function cancelExecutions(
  ex: Executor,
  workflowId: string,
  id: string | null,
  now: Date,
): Promise<string[]> {
  const r = await run<{ id: string }>(
    ex,
    sql`
    update workflow_executions set status = 'cancelled', next_run_at = null, finished_at = ${now},
      step_seq = step_seq + 1, wait_event = null, updated_at = ${now}
    where workflow_id = ${workflowId} and ${ACTIVE} ${id ? sql`and id = ${id}` : sql``}
    returning id`,
  );
  return r.rows.map((row) => row.id);
}

// ---------------------------------------------------------------------------------------------
// Executions: the engine side

/** An execution as the engine claims it, with its contact. */
export type ClaimedExecution = Pick<
  ExecutionRow,
  | 'id'
  | 'project_id'
  | 'workflow_id'
  | 'contact_id'
  | 'status'
  | 'context'
  | 'current_step_id'
  | 'step_seq'
  | 'wait_arrived'
  | 'wait_started_at'
  | 'attempts'
> & { email: string; subscribed: boolean; data: Record<string, unknown>; contact_created_at: Date };

/**
 * Leases up to `limit` due executions to the process `owner`, with their contacts. An execution
 * leased to a process that is gone is taken over at once: its write would be dropped anyway if the
 * process were still at work (see writeOutcomes). The ids are picked first (`array(…)`), so the
 * update and the contact lookup go through the primary keys however large the tables are.
 */
export async function claimDueExecutions(
  ex: Executor,
  owner: bigint,
  now: Date,
  leaseUntil: Date,
  limit: number,
): Promise<ClaimedExecution[]> {
  const r = await run<ClaimedExecution>(
    ex,
    sql`
    update workflow_executions x set locked_until = ${leaseUntil}, locked_by = ${String(owner)}::bigint,
      attempts = x.attempts + 1
    from contacts c
    where x.id = any(array(
        select id from workflow_executions
        where status in ('running', 'waiting') and next_run_at <= ${now}
          and (locked_until is null or locked_until <= ${now}
            or (locked_by is not null and ${ownerGone(sql`locked_by`)}))
        order by next_run_at
        limit ${limit}
        for update skip locked))
      and c.id = x.contact_id
    returning x.id, x.project_id, x.workflow_id, x.contact_id, x.status, x.context, x.current_step_id, x.step_seq,
      x.wait_arrived or (x.status = 'waiting'
        and ${eventSince(sql`x.contact_id`, sql`x.wait_event`, sql`x.wait_started_at`, sql`x.next_run_at`)})
        as wait_arrived,
      x.wait_started_at, x.attempts, c.email, c.subscribed, c.data, c.created_at as contact_created_at`,
  );
  return r.rows;
}

/** What became of one claimed execution. */
export interface ExecutionWrite {
  id: string;
  /** The `step_seq` it was claimed with; the write is dropped if the execution moved since. */
  seq: number;
  status: ExecutionStatus;
  stepId: string | null;
  nextRunAt: string | null;
  waitEvent: string | null;
  waitStartedAt: string | null;
  /** True when the step is retried later: the attempts counted so far are kept. */
  retry: boolean;
  error: string | null;
  finished: boolean;
  history: (Omit<HistoryRow, 'started_at' | 'finished_at'> & { started_at: string }) | null;
  /** The email a SEND_EMAIL step made. */
  emailId: string | null;
}

/**
 * The contact has an event named `name` stored since `since`. Asked when a wait starts and again
 * when it times out, so an event stored while the step was being written is not missed: its
 * dispatch may have looked before the execution was waiting.
 */
function eventSince(contactId: SQL, name: SQL, since: SQL, before?: SQL): SQL {
  const upTo = before ? sql` and e.created_at < ${before}` : sql``;
  return sql`exists (select 1 from events e where e.contact_id = ${contactId} and e.created_at >= ${since}${upTo}
    and e.name = ${name})`;
}

/**
 * Writes a batch of outcomes in one statement: each execution moves on only if it is still where it
 * was claimed (same `step_seq`, still running or waiting), and only for those do its history row and
 * its email get stored. A wait whose event is already stored is due at once, as arrived. Returns
 * the ids written.
 */
export async function writeOutcomes(
  ex: Executor,
  writes: ExecutionWrite[],
  emails: NewEmail[],
  now: Date,
): Promise<Set<string>> {
  const rows = await storeEmailsWith<{ id: string }>(ex, emails, now, {
    before: sql`
    writes as (
      select * from jsonb_to_recordset(${JSON.stringify(writes)}::jsonb) as w(
        id uuid, seq int, status text, "stepId" uuid, "nextRunAt" timestamptz, "waitEvent" text,
        "waitStartedAt" timestamptz, retry boolean, error text, finished boolean, history jsonb, "emailId" uuid)),
    arrived as (
      select w.id from writes w join workflow_executions x on x.id = w.id
      where w.status = 'waiting' and ${eventSince(sql`x.contact_id`, sql`w."waitEvent"`, sql`w."waitStartedAt"`)}),
    moved as (
      update workflow_executions x set
        status = w.status, current_step_id = w."stepId", wait_event = w."waitEvent",
        wait_started_at = w."waitStartedAt",
        wait_arrived = w.id in (select id from arrived),
        next_run_at = case when w.id in (select id from arrived) then ${now}::timestamptz else w."nextRunAt" end,
        step_seq = x.step_seq + 1,
        attempts = case when w.retry then x.attempts else 0 end, locked_until = null, locked_by = null,
        last_error = w.error,
        finished_at = case when w.finished then ${now}::timestamptz end, updated_at = ${now}
      from writes w
      where x.id = any((select array_agg(id) from writes)::uuid[])
        and x.id = w.id and x.step_seq = w.seq and x.status in ('running', 'waiting')
      returning x.id),
    history as (
      insert into workflow_execution_steps (execution_id, step_id, step_type, status, branch, output, error,
        started_at, finished_at)
      select w.id, (w.history->>'step_id')::uuid, w.history->>'step_type', w.history->>'status', w.history->>'branch',
        w.history->'output', w.history->>'error', (w.history->>'started_at')::timestamptz, ${now}
      from writes w join moved m on m.id = w.id
      where w.history is not null)`,
    admit: sql`i.id in (select w."emailId" from writes w join moved m on m.id = w.id)`,
    result: sql`id from moved`,
  });
  return new Set(rows.map((row) => row.id));
}

/** How many steps an execution has finished: tells one visit of a step from the next. */
export async function historyCount(ex: Executor, executionId: string): Promise<number> {
  const r = await run<{ n: number }>(
    ex,
    sql`select count(*)::int as n from workflow_execution_steps where execution_id = ${executionId}`,
  );
  return r.rows[0]!.n;
}

/** Releases claimed executions without moving them (the engine is stopping). */
export async function releaseExecutions(ex: Executor, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await run(
    ex,
    sql`
    update workflow_executions set locked_until = null, locked_by = null, attempts = greatest(attempts - 1, 0)
    where id in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`,
  );
}
