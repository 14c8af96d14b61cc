import type { AppContext } from '../../platform/context.js';
import { notFound } from '../../platform/http/errors.js';
import { numberedPage, pageWindow } from '../../platform/http/pagination.js';
import * as audit from '../audit/service.js';
import type { SuppressionRow } from './repo.js';
import * as repo from './repo.js';
import type { Suppression } from './schemas.js';

/** Adding to the list inside another module's transaction (a bounce or complaint being recorded). */
export { suppress } from './repo.js';

export function toSuppression(row: SuppressionRow): Suppression {
  return {
    email: row.email,
    reason: row.reason,
    emailId: row.email_id,
    detail: row.detail,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

export async function listSuppressions(
  ctx: AppContext,
  q: { projectId: string; page: number; pageSize: number; reason?: SuppressionRow['reason'] },
) {
  const { rows, total } = await repo.listSuppressions(ctx.db, { ...q, ...pageWindow(q) });
  return numberedPage(rows.map(toSuppression), total, q);
}

/** Adds an address by hand: 201 when it was not listed, 200 with the existing entry when it was. */
export async function addSuppression(
  ctx: AppContext,
  projectId: string,
  email: string,
  detail: string | null | undefined,
) {
  const { row, created } = await ctx.db.transaction(async (tx) => {
    const added = await repo.suppress(
      tx,
      { projectId, email, reason: 'manual', detail: detail ?? null },
      ctx.clock.now(),
    );
    if (added.created)
      await audit.record(tx, {
        projectId,
        action: 'suppression.created',
        target: { type: 'suppression', id: added.row.email },
      });
    return added;
  });
  return { created, suppression: toSuppression(row) };
}

export async function getSuppression(ctx: AppContext, projectId: string, email: string) {
  const row = await repo.findSuppression(ctx.db, projectId, email);
  if (!row) throw notFound('Suppression');
  return toSuppression(row);
}

/** Sends to the address go out again; the contact's subscription is left as it is. */
export async function removeSuppression(ctx: AppContext, projectId: string, email: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    if (!(await repo.unsuppress(tx, projectId, email))) throw notFound('Suppression');
    await audit.record(tx, { projectId, action: 'suppression.deleted', target: { type: 'suppression', id: email } });
  });
}
