import { sql } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { type Executor, run } from '../db/client.js';
import { AppError } from './errors.js';

const PRINTABLE_ASCII = /^[\x20-\x7e]{1,255}$/;

/** The request's Idempotency-Key, or undefined; a malformed one is a 400. */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !PRINTABLE_ASCII.test(raw)) {
    throw new AppError(400, 'INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1 to 255 printable ASCII characters', {
      suggestion: 'Send a unique value such as a UUID in the Idempotency-Key header.',
    });
  }
  return raw;
}

/** What names a request for its Idempotency-Key: the key, and the method and route it was sent to. */
export interface RequestIdentity {
  idempotencyKey?: string;
  method: string;
  path: string;
}

/** The identity of a request whose Idempotency-Key header is already checked (`idempotencyKeyOf`). */
export function requestIdentity(req: FastifyRequest): RequestIdentity {
  return { idempotencyKey: idempotencyKeyOf(req), method: req.method, path: req.routeOptions.url ?? req.url };
}

export interface IdempotencyClaim {
  projectId: string;
  key: string;
  method: string;
  path: string;
  statusCode: number;
  now: Date;
  ttlHours: number;
}

/**
 * Claims the key inside the transaction that performs the request. A concurrent request with the
 * same key waits on the row lock and then finds it taken; if this transaction rolls back, the key
 * is free again. An expired key is taken over even before the purge job has removed it.
 */
export async function claimIdempotencyKey(tx: Executor, c: IdempotencyClaim): Promise<void> {
  const expiresAt = new Date(c.now.getTime() + c.ttlHours * 3_600_000);
  const claimed = await run(
    tx,
    sql`
    insert into idempotency_keys (project_id, key, method, path, status_code, created_at, expires_at)
    values (${c.projectId}, ${c.key}, ${c.method}, ${c.path}, ${c.statusCode}, ${c.now}, ${expiresAt})
    on conflict (project_id, key) do update set
      method = excluded.method, path = excluded.path, status_code = excluded.status_code,
      created_at = excluded.created_at, expires_at = excluded.expires_at
      where idempotency_keys.expires_at <= ${c.now}
    returning key`,
  );
  if (claimed.rows.length > 0) return;
  const r = await run(
    tx,
    sql`
    select method, path, status_code, response, created_at from idempotency_keys
    where project_id = ${c.projectId} and key = ${c.key}`,
  );
  const original = r.rows[0] as {
    method: string;
    path: string;
    status_code: number;
    response: unknown;
    created_at: Date;
  };
  throw new AppError(409, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used by this project', {
    details: {
      key: c.key,
      originalRequest: { method: original.method, path: original.path },
      originalRequestAt: new Date(original.created_at).toISOString(),
      originalStatusCode: original.status_code,
      // What the first request answered, so a client whose first attempt timed out learns its ids.
      ...(original.response != null ? { data: original.response } : {}),
    },
    suggestion: 'Generate a new Idempotency-Key for a new request; reuse a key only to retry the same request.',
  });
}

/** Keeps the `data` of the response in the claim's row, in the transaction that did the work. */
export async function rememberResponse(
  tx: Executor,
  c: Pick<IdempotencyClaim, 'projectId' | 'key'>,
  data: unknown,
): Promise<void> {
  await run(
    tx,
    sql`update idempotency_keys set response = ${JSON.stringify(data)}::jsonb
      where project_id = ${c.projectId} and key = ${c.key}`,
  );
}

export async function purgeExpiredIdempotencyKeys(ex: Executor, now: Date): Promise<number> {
  const r = await run(
    ex,
    sql`
    with gone as (delete from idempotency_keys where expires_at <= ${now} returning 1)
    select count(*)::int as n from gone`,
  );
  return (r.rows[0] as { n: number }).n;
}
