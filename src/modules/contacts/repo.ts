import { sql, type SQL } from 'drizzle-orm';
import { run, type Executor } from '../../platform/db/client.js';
import type { DataPatch, FieldType } from '../../domain/contact-data.js';
import type { CursorValue } from '../../platform/http/pagination.js';

export interface ContactRow {
  id: string;
  project_id: string;
  email: string;
  subscribed: boolean;
  snoozed_until: Date | null;
  data: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

const jsonb = (value: unknown) => sql`${JSON.stringify(value)}::jsonb`;

export interface NewContact {
  email: string;
  subscribed: boolean;
  data: Record<string, unknown>;
}

/** Inserts the contacts whose email is new to the project; returns only those it inserted. */
export async function insertContacts(ex: Executor, projectId: string, contacts: NewContact[], now: Date): Promise<ContactRow[]> {
  const r = await run(ex, sql`
    insert into contacts (project_id, email, subscribed, data, created_at, updated_at)
    select ${projectId}, r.email, r.subscribed, r.data, ${now}, ${now}
    from jsonb_to_recordset(${jsonb(contacts)}) as r(email text, subscribed boolean, data jsonb)
    on conflict (project_id, email) do nothing
    returning *`);
  return r.rows as ContactRow[];
}

export interface ContactChange {
  /** The contact's id or email, as chosen by `updateContacts`' `by`. */
  key: string;
  email?: string;
  subscribed?: boolean;
  /** undefined leaves the snooze alone; null ends it. */
  snoozedUntil?: Date | null;
  patch: DataPatch;
}

export type UpdatedContactRow = ContactRow & { old_subscribed: boolean };

/**
 * Applies changes to existing contacts of a project in one statement, locking them first;
 * returns the new rows with their previous subscription. Keys that match no contact are skipped.
 */
export async function updateContacts(
  ex: Executor,
  projectId: string,
  by: 'id' | 'email',
  changes: ContactChange[],
  now: Date,
): Promise<UpdatedContactRow[]> {
  if (changes.length === 0) return [];
  const rows = changes.map((c) => ({
    key: c.key,
    email: c.email ?? null,
    subscribed: c.subscribed ?? null,
    // An explicit snooze sets its own state; an explicit subscription change ends a snooze.
    snooze: c.snoozedUntil !== undefined ? 'set' : c.subscribed !== undefined ? 'clear' : 'keep',
    snoozed_until: c.snoozedUntil ? c.snoozedUntil.toISOString() : null,
    set: c.patch.set,
    unset: c.patch.unset,
  }));
  const match = by === 'id' ? sql`c2.id = r.key::uuid` : sql`c2.email = r.key`;
  const r = await run(ex, sql`
    update contacts c set
      email = coalesce(o.email, c.email),
      data = (c.data || o.set) - array(select jsonb_array_elements_text(o.unset)),
      subscribed = coalesce(o.subscribed, c.subscribed),
      snoozed_until = case o.snooze when 'set' then o.snoozed_until when 'clear' then null else c.snoozed_until end,
      updated_at = ${now}
    from (
      select c2.id, c2.subscribed as old_subscribed, r.*
      from contacts c2
      join jsonb_to_recordset(${jsonb(rows)})
        as r(key text, email text, subscribed boolean, snooze text, snoozed_until timestamptz, set jsonb, unset jsonb)
        on ${match}
      where c2.project_id = ${projectId}
      order by c2.id
      for update of c2) o
    where c.id = o.id
    returning c.*, o.old_subscribed`);
  return r.rows as UpdatedContactRow[];
}

export async function recordFieldTypes(ex: Executor, projectId: string, types: Record<string, FieldType>): Promise<void> {
  if (Object.keys(types).length === 0) return;
  await run(ex, sql`
    insert into contact_fields (project_id, key, type)
    select ${projectId}, key, value from jsonb_each_text(${jsonb(types)})
    on conflict do nothing`);
}

export async function findContact(ex: Executor, projectId: string, id: string): Promise<ContactRow | null> {
  const r = await run(ex, sql`select * from contacts where project_id = ${projectId} and id = ${id}`);
  return (r.rows[0] as ContactRow | undefined) ?? null;
}

export async function deleteContacts(ex: Executor, projectId: string, ids: string[]): Promise<string[]> {
  const r = await run(ex, sql`
    delete from contacts where project_id = ${projectId}
      and id in (select value::uuid from jsonb_array_elements_text(${jsonb(ids)}))
    returning id`);
  return (r.rows as { id: string }[]).map((row) => row.id);
}

export interface ListQuery {
  projectId: string;
  search?: string;
  subscribed?: boolean;
  sort: 'email' | 'createdAt';
  dir: 'asc' | 'desc';
  after?: CursorValue[];
  limit: number;
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function listFilter(q: ListQuery): SQL {
  const parts: SQL[] = [sql`project_id = ${q.projectId}`];
  if (q.search) parts.push(sql`email ilike ${`%${escapeLike(q.search)}%`}`);
  if (q.subscribed !== undefined) parts.push(sql`subscribed = ${q.subscribed}`);
  return sql.join(parts, sql` and `);
}

export async function listContacts(ex: Executor, q: ListQuery): Promise<ContactRow[]> {
  const column = q.sort === 'email' ? sql`email` : sql`created_at`;
  const direction = q.dir === 'asc' ? sql`asc` : sql`desc`;
  const filters = [listFilter(q)];
  if (q.after) {
    const [value, id] = q.after;
    const typed = q.sort === 'email' ? sql`${value}::text` : sql`${value}::timestamptz`;
    filters.push(q.dir === 'asc' ? sql`(${column}, id) > (${typed}, ${id}::uuid)` : sql`(${column}, id) < (${typed}, ${id}::uuid)`);
  }
  const r = await run(ex, sql`
    select * from contacts where ${sql.join(filters, sql` and `)}
    order by ${column} ${direction}, id ${direction}
    limit ${q.limit}`);
  return r.rows as ContactRow[];
}

export async function countContacts(ex: Executor, q: ListQuery): Promise<number> {
  const r = await run(ex, sql`select count(*)::int as n from contacts where ${listFilter(q)}`);
  return (r.rows[0] as { n: number }).n;
}

export async function lookupEmails(ex: Executor, projectId: string, emails: string[]): Promise<{ id: string; email: string }[]> {
  const r = await run(ex, sql`
    select id, email from contacts
    where project_id = ${projectId} and email in (select value from jsonb_array_elements_text(${jsonb(emails)}))`);
  return r.rows as { id: string; email: string }[];
}

export async function fieldTypes(ex: Executor, projectId: string): Promise<{ key: string; type: FieldType }[]> {
  const r = await run(ex, sql`select key, type from contact_fields where project_id = ${projectId} order by key`);
  return r.rows as { key: string; type: FieldType }[];
}

export async function fieldCoverage(ex: Executor, projectId: string): Promise<{ total: number; keys: Map<string, number> }> {
  const [total, keys] = await Promise.all([
    run(ex, sql`select count(*)::int as n from contacts where project_id = ${projectId}`),
    run(ex, sql`
      select key, count(*)::int as n from contacts, jsonb_object_keys(data) as key
      where project_id = ${projectId} group by key`),
  ]);
  return {
    total: (total.rows[0] as { n: number }).n,
    keys: new Map((keys.rows as { key: string; n: number }[]).map((r) => [r.key, r.n])),
  };
}

/** Most frequent values of a field: a column for standard fields, a `data` key otherwise. */
export async function fieldValues(
  ex: Executor,
  projectId: string,
  field: { column: 'email' | 'subscribed' } | { key: string },
  limit: number,
) {
  const expr = 'column' in field ? sql.raw(field.column) : sql`data -> ${field.key}`;
  const r = await run(ex, sql`
    select ${expr} as value, count(*)::int as count from contacts
    where project_id = ${projectId} and ${expr} is not null
    group by 1 order by 2 desc, 1 limit ${limit}`);
  return r.rows as { value: unknown; count: number }[];
}

export async function removeField(ex: Executor, projectId: string, key: string): Promise<number> {
  const r = await run(ex, sql`
    with changed as (
      update contacts set data = data - ${key} where project_id = ${projectId} and data ? ${key} returning 1)
    select count(*)::int as n from changed`);
  await run(ex, sql`delete from contact_fields where project_id = ${projectId} and key = ${key}`);
  return (r.rows[0] as { n: number }).n;
}
