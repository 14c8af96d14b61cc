import { sql } from 'drizzle-orm';
import { type Executor, run } from '../../platform/db/client.js';

export interface NewConsentRow extends ConsentOrigin {
  projectId: string;
  contactId: string;
  at: Date;
  change: string;
  topicId: string | null;
  source: string;
  sourceId: string | null;
  consentText: string | null;
}

/** Who made a change and from where. */
export interface ConsentOrigin {
  actor: string;
  userId: string | null;
  keyId: string | null;
  ip: string | null;
  userAgent: string | null;
}

/**
 * One statement for any number of rows (an import's chunk creates thousands): the rows travel as one
 * JSON parameter. The user's address or the key's name is read as the rows are written.
 */
export async function insertRecords(ex: Executor, rows: NewConsentRow[]): Promise<void> {
  if (rows.length === 0) return;
  await run(
    ex,
    sql`insert into consent_records (id, project_id, contact_id, at, change, topic_id, source, source_id, actor,
        actor_name, ip, user_agent, consent_text)
      select gen_random_uuid(), r."projectId", r."contactId", r.at, r.change, r."topicId", r.source, r."sourceId",
        r.actor,
        coalesce((select email from users where id = r."userId"), (select name from api_keys where id = r."keyId")),
        r.ip, r."userAgent", r."consentText"
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r("projectId" uuid, "contactId" uuid,
        at timestamptz, change text, "topicId" uuid, source text, "sourceId" text, "consentText" text, actor text,
        "userId" uuid, "keyId" uuid, ip text, "userAgent" text)`,
  );
}

export interface ConsentRow {
  id: string;
  at: Date | string;
  change: string;
  topic_id: string | null;
  source: string;
  source_id: string | null;
  actor: string;
  actor_name: string | null;
  ip: string | null;
  user_agent: string | null;
  consent_text: string | null;
}

/** A contact's history, newest first, `limit + 1` rows after the keyset cursor (at, id). */
export async function listRecords(
  ex: Executor,
  q: { projectId: string; contactId: string; after?: [string, string]; limit: number },
): Promise<ConsentRow[]> {
  const after = q.after ? sql`and (at, id) < (${q.after[0]}::timestamptz, ${q.after[1]}::uuid)` : sql``;
  const r = await run<ConsentRow>(
    ex,
    sql`select id, at, change, topic_id, source, source_id, actor, actor_name, ip, user_agent, consent_text
      from consent_records
      where contact_id = ${q.contactId} and project_id = ${q.projectId} ${after}
      order by at desc, id desc limit ${q.limit + 1}`,
  );
  return r.rows;
}

export async function countRecords(ex: Executor, projectId: string, contactId: string): Promise<number> {
  const r = await run<{ n: number }>(
    ex,
    sql`select count(*)::int as n from consent_records where contact_id = ${contactId} and project_id = ${projectId}`,
  );
  return r.rows[0]?.n ?? 0;
}
