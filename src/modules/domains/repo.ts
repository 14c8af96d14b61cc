import { sql } from 'drizzle-orm';
import { type Executor, run } from '../../platform/db/client.js';
import type { RecordCheck } from './schemas.js';

export interface DomainRow {
  id: string;
  project_id: string;
  domain: string;
  dkim_selector: string;
  dkim_private_key: string;
  /** base64 of the SPKI DER public key: the `p=` of the DKIM record. */
  dkim_public_key: string;
  verification_token: string;
  verified: boolean;
  verified_at: Date | null;
  checked_at: Date | null;
  checks: Record<string, RecordCheck>;
  created_at: Date;
  updated_at: Date;
}

const jsonb = (value: unknown) => sql`${JSON.stringify(value)}::jsonb`;

export interface NewDomain {
  projectId: string;
  domain: string;
  selector: string;
  privateKey: string;
  publicKey: string;
  token: string;
  now: Date;
}

export async function insertDomain(ex: Executor, d: NewDomain): Promise<DomainRow> {
  const r = await run(
    ex,
    sql`
    insert into domains (project_id, domain, dkim_selector, dkim_private_key, dkim_public_key, verification_token,
      created_at, updated_at)
    values (${d.projectId}, ${d.domain}, ${d.selector}, ${d.privateKey}, ${d.publicKey}, ${d.token}, ${d.now}, ${d.now})
    returning *`,
  );
  return r.rows[0] as DomainRow;
}

export async function findDomain(ex: Executor, projectId: string, id: string): Promise<DomainRow | null> {
  const r = await run(ex, sql`select * from domains where project_id = ${projectId} and id = ${id}`);
  return (r.rows[0] as DomainRow | undefined) ?? null;
}

/** Whether the project has the domain, and whether it is verified; null when it has not. */
export interface SenderStatus {
  /** Registered to this project. */
  registered: boolean;
  verified: boolean;
  /** Registered to some other project. */
  elsewhere: boolean;
}

export async function senderStatus(ex: Executor, projectId: string, domain: string): Promise<SenderStatus> {
  const r = await run<SenderStatus>(
    ex,
    sql`select coalesce(bool_or(project_id = ${projectId}), false) as registered,
               coalesce(bool_or(project_id = ${projectId} and verified), false) as verified,
               coalesce(bool_or(project_id <> ${projectId}), false) as elsewhere
          from domains where domain = ${domain}`,
  );
  return r.rows[0]!;
}

/**
 * The DKIM key of a domain (only a verified one unless `anyState`): one lookup on the (project, domain) unique index.
 */
export async function signingKey(ex: Executor, projectId: string, domain: string, anyState = false) {
  const r = await run(
    ex,
    sql`select domain, dkim_selector, dkim_private_key,
        coalesce(checks->'return-path'->>'status' = 'verified', false) as return_path from domains
        where project_id = ${projectId} and domain = ${domain} and (verified or ${anyState})`,
    { prepared: true },
  );
  return (
    (r.rows[0] as
      | { domain: string; dkim_selector: string; dkim_private_key: string; return_path: boolean }
      | undefined) ?? null
  );
}

/** Newest first; a project holds a handful of domains, so the list is not paginated. */
export async function listDomains(ex: Executor, projectId: string): Promise<DomainRow[]> {
  const r = await run(ex, sql`select * from domains where project_id = ${projectId} order by created_at desc, id desc`);
  return r.rows as DomainRow[];
}

export async function deleteDomain(ex: Executor, projectId: string, id: string): Promise<boolean> {
  const r = await run(ex, sql`delete from domains where project_id = ${projectId} and id = ${id} returning id`);
  return r.rows.length > 0;
}

/** One page of every project's domains in id order, for the background check. */
export async function domainsAfter(ex: Executor, afterId: string | null, limit: number): Promise<DomainRow[]> {
  const after = afterId ? sql`where id > ${afterId}::uuid` : sql``;
  const r = await run(ex, sql`select * from domains ${after} order by id limit ${limit}`);
  return r.rows as DomainRow[];
}

export interface CheckOutcome {
  checks: Record<string, RecordCheck>;
  verified: boolean;
  at: Date;
}

/**
 * Stores a check. `verified_at` is when the current verified spell began: set when the domain
 * becomes verified, kept while it stays so, cleared when it stops. `updated_at` moves only when the
 * outcome changed, not on every background check.
 */
export async function recordCheck(ex: Executor, id: string, o: CheckOutcome): Promise<DomainRow | null> {
  const r = await run(
    ex,
    sql`
    update domains set
      checks = ${jsonb(o.checks)},
      checked_at = ${o.at},
      verified = ${o.verified},
      verified_at = case when not ${o.verified} then null when verified then verified_at else ${o.at}::timestamptz end,
      updated_at = case when verified is distinct from ${o.verified} or checks <> ${jsonb(o.checks)}
        then ${o.at}::timestamptz else updated_at end
    where id = ${id}
    returning *`,
  );
  return (r.rows[0] as DomainRow | undefined) ?? null;
}

/** Whether the domain is a registered sender domain (of any project) or its `bounces.` subdomain. */
export async function isRegisteredDomain(ex: Executor, domain: string): Promise<boolean> {
  const bare = domain.toLowerCase().replace(/^bounces\./, '');
  const r = await run(ex, sql`select 1 from domains where domain = ${bare} limit 1`);
  return r.rows.length > 0;
}

/** The verified domains of that name, of every project that verified it. */
export async function verifiedNamed(ex: Executor, domain: string): Promise<{ id: string; project_id: string }[]> {
  const r = await run<{ id: string; project_id: string }>(
    ex,
    sql`select id, project_id from domains where domain = ${domain} and verified`,
  );
  return r.rows;
}
