import { randomUUID } from 'node:crypto';
import type { SQL } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { iso } from '../../domain/formats.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import { encodeCursor } from '../../platform/http/pagination.js';
import { currentRequest, requestOrigin } from '../../platform/http/request-scope.js';
import * as repo from './repo.js';
import type { AuditEntry, AuditQuery } from './schemas.js';

/**
 * The audit log (docs/decisions.md, "Audit log"). A service that changes something calls `record`
 * with the transaction of its change: the entry is written exactly when the change is, and a change
 * that fails (a 422, a 409, a crash) leaves none. Who and from where come from the request being
 * handled (`platform/http/request-scope.ts`); code that runs outside a request is "system".
 */

type Scalar = string | number | boolean | null;

/** What changed, compactly: the fields, and for small scalar settings their values before and after. */
export interface ChangeSummary {
  /** The names of the fields that changed or were given. */
  fields?: string[];
  /** `field: [before, after]` for small scalar values (a role, a status, a threshold). */
  values?: Record<string, [Scalar, Scalar]>;
  /** Other small facts: a count, a name, a status. */
  [key: string]: unknown;
}

/** Who made a change, when the request does not say (signing in, jobs). */
export type ExplicitActor =
  | { kind: 'user'; id: string; name?: string | null }
  | { kind: 'system' }
  | { kind: 'anonymous'; name?: string | null };

export interface AuditRecord {
  /** The project the change belongs to; null for what belongs to none (signing in). */
  projectId: string | null;
  /** `<target>.<verb>`: `contact.updated`, `member.role_changed`, `api_key.created`. */
  action: string;
  target: { type: string; id: string | null };
  changes?: ChangeSummary | null;
  /** Who, when it is not the request's caller (signing in) or there is no request (jobs). */
  actor?: ExplicitActor;
}

/**
 * Names whose values are never written, whatever a caller passes: secrets, and message and template
 * bodies. Only their names appear in `fields`.
 */
const WITHHELD = /pass|secret|token|key|hash|code|html|body|text|content|blocks|mjml|signature|credential|headers/i;
const MAX_TEXT = 200;

function safeScalar(value: unknown): Scalar {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string') return value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…` : value;
  if (value instanceof Date) return value.toISOString();
  return null;
}

/** Keeps a summary compact and free of secrets: scalar values only, and none under a withheld name. */
export function cleanSummary(summary: ChangeSummary): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(summary)) {
    if (value === undefined) continue;
    if (key === 'fields' && Array.isArray(value)) out.fields = value.slice(0, 50).map(String);
    else if (key === 'values' && value && typeof value === 'object') {
      const values: Record<string, [Scalar, Scalar]> = {};
      for (const [field, pair] of Object.entries(value as Record<string, unknown>)) {
        if (WITHHELD.test(field) || !Array.isArray(pair)) continue;
        values[field] = [safeScalar(pair[0]), safeScalar(pair[1])];
      }
      if (Object.keys(values).length > 0) out.values = values;
    } else if (!WITHHELD.test(key)) {
      if (Array.isArray(value)) out[key] = value.slice(0, 50).map(safeScalar);
      else out[key] = safeScalar(value);
    }
  }
  return out;
}

/** The fields a patch or a body gives (those not undefined), as a summary. */
export function fieldsOf(patch: object | null | undefined, extra: Omit<ChangeSummary, 'fields'> = {}): ChangeSummary {
  const fields = Object.entries(patch ?? {})
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k);
  return { fields, ...extra };
}

/**
 * The fields of `after` that differ from `before`, with both values where they are scalars (settings,
 * thresholds): `{ fields: ['rate'], values: { rate: [0.1, 0.2] } }`.
 */
export function settingsDiff(before: object, after: object): ChangeSummary {
  const b = before as Record<string, unknown>;
  const a = after as Record<string, unknown>;
  const fields: string[] = [];
  const values: Record<string, [Scalar, Scalar]> = {};
  for (const key of Object.keys(a)) {
    if (JSON.stringify(a[key]) === JSON.stringify(b[key])) continue;
    fields.push(key);
    const isScalar = (v: unknown) =>
      v === null || v === undefined || ['string', 'number', 'boolean'].includes(typeof v);
    if (isScalar(a[key]) && isScalar(b[key])) values[key] = [safeScalar(b[key] ?? null), safeScalar(a[key])];
  }
  return Object.keys(values).length > 0 ? { fields, values } : { fields };
}

export interface Who {
  actor: string;
  name: string | null;
  userId: string | null;
  keyId: string | null;
}

const SYSTEM: Who = { actor: 'system', name: null, userId: null, keyId: null };

/** The caller of a request: its signed-in user, its named key, or the project's secret key. */
export function requestActor(request: FastifyRequest): Who {
  const project = request.project;
  const userId = project?.userId ?? (request as { userId?: string | null }).userId ?? null;
  if (userId) return { actor: `user:${userId}`, name: null, userId, keyId: null };
  if (project?.actor.startsWith('key:')) {
    const keyId = project.actor.slice(4);
    return { actor: project.actor, name: null, userId: null, keyId };
  }
  if (project) return { actor: 'secret-key', name: null, userId: null, keyId: null };
  return { actor: 'anonymous', name: null, userId: null, keyId: null };
}

function explicitActor(actor: ExplicitActor): Who {
  if (actor.kind === 'user')
    return { actor: `user:${actor.id}`, name: actor.name ?? null, userId: actor.id, keyId: null };
  if (actor.kind === 'anonymous') return { actor: 'anonymous', name: actor.name ?? null, userId: null, keyId: null };
  return SYSTEM;
}

/** Who wrote an entry and from where: the request's caller, or the record's own actor. */
function origin(entry: { actor?: ExplicitActor }) {
  const request = currentRequest();
  const who = entry.actor ? explicitActor(entry.actor) : request ? requestActor(request) : SYSTEM;
  const fromRequest = request && entry.actor?.kind !== 'system';
  return {
    actor: who.actor,
    actorName: who.name,
    userId: who.userId,
    keyId: who.keyId,
    ...(fromRequest ? requestOrigin() : { ip: null, userAgent: null }),
    requestId: fromRequest ? request.id : null,
  };
}

/**
 * Appends an entry for a change, in `tx`, the transaction of the change (or the statement's
 * executor when the change is one statement in it). One statement, no read before it.
 */
export async function record(tx: Executor, entry: AuditRecord): Promise<void> {
  await repo.insertEntry(tx, {
    id: randomUUID(),
    projectId: entry.projectId,
    ...origin(entry),
    action: entry.action,
    targetType: entry.target.type,
    targetId: entry.target.id,
    changes: entry.changes ? cleanSummary(entry.changes) : null,
  });
}

/** An entry written by its change's own statement (`changed`): see `changeAudited`. */
export interface StatementRecord extends Omit<AuditRecord, 'target'> {
  /** The id may be SQL over the changed row: `sql\`changed.id::text\``. */
  target: { type: string; id: string | null | SQL };
  /**
   * One entry whatever the change did, with how many rows it changed under `changes[countAs]`;
   * without it, one entry per changed row, and none when the change changed nothing.
   */
  countAs?: string;
}

/**
 * Runs `change`, one insert, update or delete with `returning`, and writes its entry in the same
 * statement (`with changed as (change) insert into audit_log … from changed`): the entry is written
 * exactly when the change is, at the cost of the change alone, one round trip, no transaction to
 * open. Answers the rows `change` returns, parsed as its own would be. In a transaction (`ex` = its
 * `tx`), a change of several statements writes its entry with one of them and no round trip of its own.
 * The statement is prepared (planned once per connection): `change` names the columns it returns,
 * never `returning *`, since a prepared statement whose columns change (a column added by a
 * migration while the service runs) fails until its connection ends.
 */
export async function changeAudited<T>(ex: Executor, change: SQL, entry: StatementRecord): Promise<T[]> {
  return repo.changeWithEntry<T>(ex, change, {
    projectId: entry.projectId,
    ...origin(entry),
    action: entry.action,
    targetType: entry.target.type,
    targetId: entry.target.id,
    changes: entry.changes ? cleanSummary(entry.changes) : null,
    countAs: entry.countAs,
  });
}

/**
 * Runs `work` in a transaction and records what it did in the same one. `describe` gets the result,
 * so a created id can be the target. It costs a transaction (BEGIN, the entry, COMMIT: three round
 * trips more than a change of one statement): a change that is one statement writes its entry with
 * `changeAudited` instead; this is for the rare ones whose statement cannot be a CTE (one with a
 * `with` of its own that changes data) or that are more than one statement.
 */
export async function audited<T>(
  ctx: AppContext,
  work: (tx: Executor) => Promise<T>,
  describe: (result: T) => AuditRecord | null | false,
): Promise<T> {
  return ctx.db.transaction(async (tx) => {
    const result = await work(tx);
    const entry = describe(result);
    if (entry) await record(tx, entry);
    return result;
  });
}

/**
 * A refused sign-in, on its own: there is no change to join, and the refusal must stay recorded
 * though the request fails. The actor is whoever tried (the address typed, never the password).
 */
export async function signInFailed(
  ctx: AppContext,
  email: string | null,
  userId: string | null,
  step: 'password' | 'second_factor',
): Promise<void> {
  await record(ctx.db, {
    projectId: null,
    action: 'user.sign_in_failed',
    target: { type: 'user', id: userId },
    changes: { step },
    actor: { kind: 'anonymous', name: email?.slice(0, 320) ?? null },
  });
}

/** A session opened for `user` (by password, second factor, invitation or setup). */
export async function signedIn(ex: Executor, user: { id: string; email: string }, secondFactor: boolean) {
  await record(ex, {
    projectId: null,
    action: 'user.signed_in',
    target: { type: 'user', id: user.id },
    changes: { secondFactor },
    actor: { kind: 'user', id: user.id, name: user.email },
  });
}

// The list

/** Counting more than this many entries for `total` would cost more than the page itself. */
export const TOTAL_CAP = 10_000;

function actorOf(row: repo.AuditRow): AuditEntry['actor'] {
  const [kind, id] = row.actor.split(/:(.*)/s) as [string, string | undefined];
  if (kind === 'user' || kind === 'key') return { kind, id: id ?? null, label: row.actor_name };
  if (kind === 'secret-key' || kind === 'system') return { kind, id: null, label: null };
  return { kind: 'anonymous', id: null, label: row.actor_name };
}

export function toAuditEntry(row: repo.AuditRow): AuditEntry {
  return {
    id: row.id,
    createdAt: iso(row.created_at),
    actor: actorOf(row),
    ip: row.ip,
    userAgent: row.user_agent,
    requestId: row.request_id,
    action: row.action,
    target: { type: row.target_type, id: row.target_id },
    changes: row.changes,
  };
}

export async function listEntries(ctx: AppContext, projectId: string, q: AuditQuery) {
  const query: repo.EntryQuery = {
    projectId,
    actor: q.actor,
    action: q.action,
    targetType: q.targetType,
    targetId: q.targetId,
    from: q.from ? new Date(q.from) : undefined,
    to: q.to ? new Date(q.to) : undefined,
    after: q.cursor as [string, string] | undefined,
    limit: q.limit,
  };
  const [rows, count] = await Promise.all([
    repo.listEntries(ctx.db, query),
    q.cursor ? null : repo.countEntries(ctx.db, query, TOTAL_CAP),
  ]);
  const hasMore = rows.length > q.limit;
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    data: page.map(toAuditEntry),
    cursor: hasMore && last ? encodeCursor([iso(last.created_at), last.id]) : null,
    hasMore,
    total: count?.n ?? 0,
    totalCapped: count?.capped ?? false,
  };
}

/** Entries older than the instance's retention go, `batch` at a time, at most `maxBatches` per call. */
export async function purgeExpiredEntries(
  ctx: AppContext,
  options: { batch?: number; maxBatches?: number } = {},
): Promise<number> {
  const { batch = 1_000, maxBatches = 100 } = options;
  const before = new Date(ctx.clock.now().getTime() - ctx.config.auditRetentionDays * 86_400_000);
  let removed = 0;
  for (let i = 0; i < maxBatches; i++) {
    const n = await repo.purgeBatch(ctx.db, before, batch);
    removed += n;
    if (n < batch) break;
  }
  return removed;
}
