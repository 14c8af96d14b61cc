import { iso } from '../../domain/formats.js';
import type { AppContext } from '../../platform/context.js';
import { notFound } from '../../platform/http/errors.js';
import { type CursorPage, type CursorValue, cursorPage, invalidCursorError } from '../../platform/http/pagination.js';
import * as audit from '../audit/service.js';
import type { TemplateFields, TemplateRow } from './repo.js';
import * as repo from './repo.js';
import type { Version, VersionSummary } from './schemas.js';
import { type Author, changedFields, type VersionEvent } from './versions.js';
import * as versions from './versions-repo.js';

/** Notified with `<projectId>:<id>` when a template changes or goes, so processes drop cached copies. */
export const TEMPLATES_CHANNEL = 'templates_changed';

/**
 * Writes what `change` sets that differs from the template as it stands, and records the result as
 * its next version, in one transaction: a template never has content its history lacks. Null when
 * the template is not the project's; the row unchanged (and no version) when nothing differs.
 */
export async function saveVersion(
  ctx: AppContext,
  projectId: string,
  id: string,
  change: Partial<TemplateFields>,
  entry: { event: Exclude<VersionEvent, 'created'>; restoredFrom: number | null; author: Author },
): Promise<TemplateRow | null> {
  const saved = await ctx.db.transaction(async (tx) => {
    const current = await repo.findTemplate(tx, projectId, id, true);
    if (!current) return null;
    const changed = changedFields(repo.fieldsOf(current), change);
    if (changed.length === 0) return { row: current, changed };
    const only = Object.fromEntries(changed.map((f) => [f, change[f]])) as Partial<TemplateFields>;
    const row = (await repo.updateTemplate(tx, projectId, id, only, ctx.clock.now()))!;
    await versions.insertVersion(tx, row, { ...entry, changed });
    await audit.record(tx, {
      projectId,
      action: entry.event === 'restored' ? 'template.restored' : 'template.updated',
      target: { type: 'template', id },
      changes: { fields: changed, ...(entry.restoredFrom !== null ? { restoredFrom: entry.restoredFrom } : {}) },
    });
    return { row, changed };
  });
  if (saved?.changed.length) await ctx.caches.changed(ctx.db, TEMPLATES_CHANNEL, `${projectId}:${id}`);
  return saved?.row ?? null;
}

/** A new template and its version 1, together. */
export async function insertWithVersion(
  ctx: AppContext,
  projectId: string,
  values: TemplateFields,
  author: Author,
  duplicatedFrom?: string,
): Promise<TemplateRow> {
  return ctx.db.transaction(async (tx) => {
    const row = await repo.insertTemplate(tx, projectId, values, ctx.clock.now());
    await versions.insertVersion(tx, row, { event: 'created', restoredFrom: null, changed: [], author });
    await audit.record(tx, {
      projectId,
      action: 'template.created',
      target: { type: 'template', id: row.id },
      changes: { name: row.name, ...(duplicatedFrom ? { duplicatedFrom } : {}) },
    });
    return row;
  });
}

function toSummary(row: versions.VersionSummaryRow): VersionSummary {
  return {
    templateId: row.template_id,
    n: row.n,
    event: row.event,
    restoredFrom: row.restored_from,
    changed: row.changed,
    author: row.author_kind ? { kind: row.author_kind, userId: row.author_user_id, email: row.author_email } : null,
    createdAt: iso(row.created_at),
    name: row.name,
    subject: row.subject,
  };
}

function toVersion(row: versions.VersionRow): Version {
  return {
    ...toSummary(row),
    description: row.description,
    body: row.body,
    bodySource: row.body_source,
    from: row.from_email,
    fromName: row.from_name,
    replyTo: row.reply_to,
    type: row.type,
  };
}

async function requireTemplate(ctx: AppContext, projectId: string, id: string): Promise<TemplateRow> {
  const row = await repo.findTemplate(ctx.db, projectId, id);
  if (!row) throw notFound('Template');
  return row;
}

/** The cursor of a version list is the number of the last version shown. */
function beforeOf(cursor: CursorValue[] | undefined): number | null {
  if (!cursor) return null;
  const [n] = cursor;
  if (cursor.length !== 1 || typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw invalidCursorError();
  return n;
}

/** GET /templates/{id}/versions: newest first; `total` on the first page only, as every cursor list. */
export async function listVersions(
  ctx: AppContext,
  projectId: string,
  id: string,
  q: { limit: number; cursor?: CursorValue[] },
): Promise<CursorPage<VersionSummary>> {
  const before = beforeOf(q.cursor);
  await requireTemplate(ctx, projectId, id);
  const [rows, total] = await Promise.all([
    versions.listVersions(ctx.db, projectId, id, { limit: q.limit, before }),
    before === null ? versions.countVersions(ctx.db, projectId, id) : Promise.resolve(0),
  ]);
  return { ...cursorPage(rows, q.limit, (r) => [r.n], toSummary), total };
}

async function requireVersion(ctx: AppContext, projectId: string, id: string, n: number) {
  await requireTemplate(ctx, projectId, id);
  const row = await versions.findVersion(ctx.db, projectId, id, n);
  if (!row) throw notFound('Template version');
  return row;
}

export async function getVersion(ctx: AppContext, projectId: string, id: string, n: number): Promise<Version> {
  return toVersion(await requireVersion(ctx, projectId, id, n));
}

/** The content of version `n`, as a change to the template. */
export async function versionContent(
  ctx: AppContext,
  projectId: string,
  id: string,
  n: number,
): Promise<TemplateFields> {
  return repo.fieldsOf(await requireVersion(ctx, projectId, id, n));
}
