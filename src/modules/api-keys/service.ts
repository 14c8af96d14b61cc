import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { generateKey, hashKey, keyHint, type Scope } from '../../domain/api-keys.js';
import { iso } from '../../domain/formats.js';
import type { AppContext } from '../../platform/context.js';
import type { Db } from '../../platform/db/client.js';
import { AppError, validationError } from '../../platform/http/errors.js';
import * as audit from '../audit/service.js';
import * as repo from './repo.js';
import type { ApiKey, createKeyBody, patchKeyBody, rotateKeyBody } from './schemas.js';

const notFound = () => new AppError(404, 'NOT_FOUND', 'API key not found');

function creatorOf(row: repo.ApiKeyRow): ApiKey['createdBy'] {
  const [kind, id] = row.created_by.split(':') as [string, string | undefined];
  if (kind === 'user' || kind === 'key') return { kind, id: id ?? null, label: row.created_by_label };
  return { kind: 'secret-key', id: null, label: null };
}

const isPast = (at: Date | string | null, now: Date) => at !== null && new Date(at) <= now;

export function toApiKey(row: repo.ApiKeyRow, now: Date): ApiKey {
  const status = row.revoked_at ? 'revoked' : isPast(row.expires_at, now) ? 'expired' : 'active';
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes as Scope[],
    hint: row.key_hint,
    status,
    expiresAt: iso(row.expires_at),
    createdAt: iso(row.created_at),
    createdBy: creatorOf(row),
    lastUsedAt: iso(row.last_used_at),
    lastUsedIp: row.last_used_ip,
    rotatedAt: iso(row.rotated_at),
    previousValidUntil: isPast(row.previous_valid_until, now) ? null : iso(row.previous_valid_until),
    revokedAt: iso(row.revoked_at),
  };
}

function expiryOf(value: string | null | undefined, now: Date): Date | null | undefined {
  if (value === undefined || value === null) return value;
  const at = new Date(value);
  if (at <= now)
    throw validationError([{ field: 'expiresAt', message: 'Choose a time in the future', code: 'custom' }]);
  return at;
}

async function keyOf(ctx: AppContext, projectId: string, id: string): Promise<ApiKey> {
  const row = await repo.findKey(ctx.db, projectId, id);
  if (!row) throw notFound();
  return toApiKey(row, ctx.clock.now());
}

export async function listKeys(ctx: AppContext, projectId: string): Promise<ApiKey[]> {
  const now = ctx.clock.now();
  return (await repo.listKeys(ctx.db, projectId)).map((row) => toApiKey(row, now));
}

export const getKey = keyOf;

/** A new named key; its secret is in this answer only (the table keeps its hash). */
export async function createKey(
  ctx: AppContext,
  projectId: string,
  actor: string,
  body: z.output<typeof createKeyBody>,
): Promise<ApiKey & { key: string }> {
  const now = ctx.clock.now();
  const key = generateKey('scoped');
  const id = randomUUID();
  const expiresAt = expiryOf(body.expiresAt, now) ?? null;
  await ctx.db.transaction(async (tx) => {
    await repo.insertKey(tx, {
      id,
      projectId,
      name: body.name,
      scopes: body.scopes,
      hash: hashKey(key),
      hint: keyHint(key),
      expiresAt,
      createdBy: actor,
      now,
    });
    await audit.record(tx, {
      projectId,
      action: 'api_key.created',
      target: { type: 'api_key', id },
      changes: { name: body.name, scopes: body.scopes, expiresAt: expiresAt?.toISOString() ?? null },
    });
  });
  return { ...(await keyOf(ctx, projectId, id)), key };
}

export async function updateKey(
  ctx: AppContext,
  projectId: string,
  id: string,
  body: z.output<typeof patchKeyBody>,
): Promise<ApiKey> {
  const change = { name: body.name, scopes: body.scopes, expiresAt: expiryOf(body.expiresAt, ctx.clock.now()) };
  const updated = await ctx.db.transaction(async (tx) => {
    if (!(await repo.updateKey(tx, projectId, id, change))) return false;
    await audit.record(tx, {
      projectId,
      action: 'api_key.updated',
      target: { type: 'api_key', id },
      changes: audit.fieldsOf(change, { scopes: body.scopes }),
    });
    return true;
  });
  if (!updated) throw notFound();
  ctx.keys.clear();
  return keyOf(ctx, projectId, id);
}

/** A new secret for the key; the replaced one works on for the overlap, so callers can move without downtime. */
export async function rotateKey(
  ctx: AppContext,
  projectId: string,
  id: string,
  body: z.output<typeof rotateKeyBody>,
): Promise<ApiKey & { key: string }> {
  const now = ctx.clock.now();
  const key = generateKey('scoped');
  const overlapUntil = new Date(now.getTime() + body.overlapMinutes * 60_000);
  const v = { hash: hashKey(key), hint: keyHint(key), overlapUntil, now };
  const rotated = await ctx.db.transaction(async (tx) => {
    if (!(await repo.rotateKey(tx, projectId, id, v))) return false;
    await audit.record(tx, {
      projectId,
      action: 'api_key.rotated',
      target: { type: 'api_key', id },
      changes: { overlapMinutes: body.overlapMinutes },
    });
    return true;
  });
  if (!rotated) throw notFound();
  ctx.keys.clear();
  return { ...(await keyOf(ctx, projectId, id)), key };
}

/** Stops the key at once, in every process; it stays listed as revoked. */
export async function revokeKey(ctx: AppContext, projectId: string, id: string): Promise<void> {
  const revoked = await ctx.db.transaction(async (tx) => {
    if (!(await repo.revokeKey(tx, projectId, id, ctx.clock.now()))) return false;
    await audit.record(tx, { projectId, action: 'api_key.revoked', target: { type: 'api_key', id } });
    return true;
  });
  if (!revoked) throw notFound();
  ctx.keys.clear();
}

export { keyByHash } from './repo.js';

const USE_RECORDED_EVERY_MS = 60_000;

/**
 * Records when and from where each named key was last used, at most once a minute per key and
 * after the request, in one statement for the keys used meanwhile: a request never waits on it.
 */
export function keyUsage(db: Db, now: () => Date = () => new Date()) {
  const recorded = new Map<string, number>();
  let pending = new Map<string, { id: string; at: Date; ip: string }>();
  let flushing = false;
  const flush = () => {
    flushing = false;
    const uses = [...pending.values()];
    pending = new Map();
    // Best effort: a lost write only leaves "last used" a minute older.
    repo.recordUses(db, uses).catch(() => {});
  };
  return (id: string, ip: string) => {
    const at = now();
    if (at.getTime() - (recorded.get(id) ?? 0) < USE_RECORDED_EVERY_MS) return;
    recorded.set(id, at.getTime());
    pending.set(id, { id, at, ip });
    if (flushing) return;
    flushing = true;
    setTimeout(flush, 200).unref();
  };
}
