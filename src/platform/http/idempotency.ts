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
  const [refusal] = await claimIdempotencyKeys(tx, [c]);
  if (refusal) throw refusal;
}

/**
 * `claimIdempotencyKey` for the requests of a batch, in one statement: per claim, null when it is
 * taken, or the 409 its request answers. No two claims may name the same key of a project.
 */
export async function claimIdempotencyKeys(tx: Executor, claims: IdempotencyClaim[]): Promise<(AppError | null)[]> {
  if (claims.length === 0) return [];
  const rows = claims
    .map((c) => ({
      project_id: c.projectId,
      key: c.key,
      method: c.method,
      path: c.path,
      status_code: c.statusCode,
      created_at: c.now.toISOString(),
      expires_at: new Date(c.now.getTime() + c.ttlHours * 3_600_000).toISOString(),
    }))
    // Locked in one order, so that concurrent batches cannot deadlock.
    .sort((a, b) => compare(a.project_id, b.project_id) || compare(a.key, b.key));
  const claimed = await run<{ project_id: string; key: string }>(
    tx,
    sql`
    insert into idempotency_keys (project_id, key, method, path, status_code, created_at, expires_at)
    select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(project_id uuid, key text, method text,
      path text, status_code integer, created_at timestamptz, expires_at timestamptz)
    on conflict (project_id, key) do update set
      method = excluded.method, path = excluded.path, status_code = excluded.status_code,
      created_at = excluded.created_at, expires_at = excluded.expires_at
      where idempotency_keys.expires_at <= excluded.created_at
    returning project_id, key`,
  );
  const taken = new Set(claimed.rows.map((r) => keyOf(r.project_id, r.key)));
  const refused = claims.filter((c) => !taken.has(keyOf(c.projectId, c.key)));
  if (refused.length === 0) return claims.map(() => null);
  const originals = await run<OriginalRequest & { project_id: string; key: string }>(
    tx,
    sql`
    select k.project_id, k.key, k.method, k.path, k.status_code, k.response, k.created_at
    from idempotency_keys k
    join jsonb_to_recordset(${JSON.stringify(refused.map((c) => ({ project_id: c.projectId, key: c.key })))}::jsonb)
      as r(project_id uuid, key text) on k.project_id = r.project_id and k.key = r.key`,
  );
  const byKey = new Map(originals.rows.map((o) => [keyOf(o.project_id, o.key), o]));
  return claims.map((c) => {
    if (taken.has(keyOf(c.projectId, c.key))) return null;
    return keyReusedError(c.key, byKey.get(keyOf(c.projectId, c.key))!);
  });
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const keyOf = (projectId: string, key: string) => `${projectId}\n${key}`;

interface OriginalRequest {
  method: string;
  path: string;
  status_code: number;
  response: unknown;
  created_at: Date;
}

function keyReusedError(key: string, original: OriginalRequest): AppError {
  return new AppError(409, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used by this project', {
    details: {
      key,
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
  await rememberResponses(tx, [{ ...c, data }]);
}

/** `rememberResponse` for the requests of a batch, in one statement. */
export async function rememberResponses(
  tx: Executor,
  responses: (Pick<IdempotencyClaim, 'projectId' | 'key'> & { data: unknown })[],
): Promise<void> {
  if (responses.length === 0) return;
  const rows = responses.map((r) => ({ project_id: r.projectId, key: r.key, response: r.data }));
  await run(
    tx,
    sql`update idempotency_keys k set response = r.response
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(project_id uuid, key text, response jsonb)
      where k.project_id = r.project_id and k.key = r.key`,
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
