import { iso } from '../../domain/formats.js';
import { graphFaults } from '../../domain/workflows/graph-rules.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { type CursorValue, cursorPage, invalidCursorError, isKeysetCursor } from '../../platform/http/pagination.js';
import * as audit from '../audit/service.js';
import { findContact, lookupEmails } from '../contacts/service.js';
import type { ExecutionRow } from './executions-repo.js';
import * as executions from './executions-repo.js';
import { loadGraph } from './graph-cache.js';
import type { ExecutionStatus } from './schemas.js';
import { faultsError, requireWorkflow, toExecution, toHistory } from './service.js';

/** A workflow's executions through the API: starting one by hand, listing, reading and cancelling them. */

/**
 * POST /workflows/{id}/executions: starts the workflow for one of the project's contacts (by id or
 * email) with an optional context, enabled or not, whatever `allowReentry` says: a manual start is
 * an explicit request. The graph must be able to run.
 */
export async function startExecution(
  ctx: AppContext,
  projectId: string,
  id: string,
  body: { contactId?: string; email?: string; context: Record<string, unknown> },
) {
  const workflow = await requireWorkflow(ctx.db, projectId, id);
  const graph = await loadGraph(ctx.db, workflow);
  const faults = graphFaults(
    [...graph.steps.values()].map((s) => ({ id: s.id, type: s.type })),
    graph.transitions,
  );
  if (faults.length > 0) throw faultsError(faults);
  const contactId = body.contactId ?? (await lookupEmails(ctx.db, projectId, [body.email!]))[0]?.id;
  if (!contactId || !(await findContact(ctx.db, projectId, contactId))) throw notFound('Contact');
  const row = await ctx.db.transaction(async (tx) => {
    const started = await executions.startExecution(
      tx,
      projectId,
      { workflowId: id, contactId, entryStepId: graph.entry!, context: body.context, once: false },
      ctx.clock.now(),
    );
    await audit.record(tx, {
      projectId,
      action: 'workflow.execution_started',
      target: { type: 'workflow', id },
      changes: { executionId: started!.id, contactId, context: Object.keys(body.context) },
    });
    return started;
  });
  return toExecution(row!);
}

export async function listExecutions(
  ctx: AppContext,
  projectId: string,
  id: string,
  q: { status?: ExecutionStatus; contactId?: string; email?: string; limit: number; cursor?: CursorValue[] },
) {
  await requireWorkflow(ctx.db, projectId, id);
  if (q.cursor && !isKeysetCursor(q.cursor, 'timestamp')) throw invalidCursorError();
  let contactId = q.contactId;
  if (q.email !== undefined) {
    const found = (await lookupEmails(ctx.db, projectId, [q.email]))[0]?.id;
    // An address no contact has, or another contact than contactId names: nothing matches.
    if (!found || (contactId !== undefined && contactId !== found))
      return { data: [], cursor: null, hasMore: false, total: 0 };
    contactId = found;
  }
  const filter = { workflowId: id, status: q.status, contactId };
  const [rows, total] = await Promise.all([
    executions.listExecutions(ctx.db, { ...filter, after: q.cursor, limit: q.limit + 1 }),
    q.cursor ? Promise.resolve(0) : executions.countExecutions(ctx.db, filter),
  ]);
  return { ...cursorPage(rows, q.limit, (r) => [iso(r.started_at), r.id], toExecution), total };
}

async function requireExecution(
  ex: Executor,
  projectId: string,
  id: string,
  executionId: string,
): Promise<ExecutionRow> {
  await requireWorkflow(ex, projectId, id);
  const row = await executions.findExecution(ex, id, executionId);
  if (!row) throw notFound('Execution');
  return row;
}

export async function getExecution(ctx: AppContext, projectId: string, id: string, executionId: string) {
  const row = await requireExecution(ctx.db, projectId, id, executionId);
  return { ...toExecution(row), steps: (await executions.executionHistory(ctx.db, executionId)).map(toHistory) };
}

/** Cancels a running or waiting execution; a finished one is a 409. */
export async function cancelExecution(ctx: AppContext, projectId: string, id: string, executionId: string) {
  const row = await requireExecution(ctx.db, projectId, id, executionId);
  const cancelled = await ctx.db.transaction(async (tx) => {
    const done = await executions.cancelExecutions(tx, id, executionId, ctx.clock.now());
    if (done.length > 0)
      await audit.record(tx, {
        projectId,
        action: 'workflow.execution_cancelled',
        target: { type: 'workflow', id },
        changes: { executionId },
      });
    return done;
  });
  if (cancelled.length === 0) {
    throw new AppError(
      409,
      'EXECUTION_FINISHED',
      `The execution is ${row.status}; only running and waiting executions can be cancelled`,
    );
  }
  return toExecution((await executions.findExecution(ctx.db, id, executionId))!);
}

export async function cancelAllExecutions(ctx: AppContext, projectId: string, id: string) {
  await requireWorkflow(ctx.db, projectId, id);
  const cancelled = await ctx.db.transaction(async (tx) => {
    const n = (await executions.cancelExecutions(tx, id, null, ctx.clock.now())).length;
    await audit.record(tx, {
      projectId,
      action: 'workflow.executions_cancelled',
      target: { type: 'workflow', id },
      changes: { cancelled: n },
    });
    return n;
  });
  return { workflowId: id, cancelled };
}

/** GET /workflows/fields: what CONDITION filters can name, contact fields and event names. */
