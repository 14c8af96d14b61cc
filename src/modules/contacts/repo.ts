import { type SQL, sql } from 'drizzle-orm';
import type { DataPatch, FieldType } from '../../domain/contact-data.js';
import { likePattern } from '../../domain/formats.js';
import { type Executor, run } from '../../platform/db/client.js';
import type { CursorValue } from '../../platform/http/pagination.js';
import { uncountEventsOfContactsCte } from '../events/daily-counts.js';
import { storeEventsCte } from '../events/record.js';

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

export interface UpsertRow {
  projectId: string;
  email: string;
  /** null keeps an existing contact's subscription (and gives a new one the default). */
  subscribed: boolean | null;
  set: Record<string, unknown>;
  unset: string[];
  /** The address's erasure hash (domain/erasure.ts): an address erased from the project is not written. */
  hash: string;
}

/** An event for a contact of the statement, with the id it is to have. */
export interface UpsertEvent {
  id: string;
  projectId: string;
  email: string;
  name: string;
  data: Record<string, unknown>;
  at: Date;
}

export interface Upsert {
  /** One row per project and email: a statement cannot change the same contact twice. */
  rows: UpsertRow[];
  subscribedByDefault: boolean;
  /** Types of keys their project has not typed yet; the first one written wins. */
  newTypes: { projectId: string; key: string; type: FieldType }[];
  /** Events to record for contacts of the statement, stored in this order (what /v1/track does). */
  events: UpsertEvent[];
  now: Date;
}

export type UpsertedContactRow = ContactRow & {
  inserted: boolean;
  /** The subscription before this statement; null for new contacts. */
  old_subscribed: boolean | null;
};

const byProjectAndEmail = (a: UpsertRow, b: UpsertRow) =>
  a.projectId < b.projectId ? -1 : a.projectId > b.projectId ? 1 : a.email < b.email ? -1 : a.email > b.email ? 1 : 0;

/**
 * Creates or patches contacts by email in one statement, for any number of projects: field types,
 * the contacts, and the events with their outbox entries.
 * Atomic on its own, so the hottest path (/v1/track) is one round trip, for a whole batch of requests.
 */
export async function upsertContacts(ex: Executor, u: Upsert): Promise<UpsertedContactRow[]> {
  const rows = [...u.rows].sort(byProjectAndEmail).map((r) => ({
    project_id: r.projectId,
    email: r.email,
    subscribed: r.subscribed,
    set: r.set,
    unset: r.unset,
    hash: r.hash,
  }));
  const ctes: SQL[] = [
    // An address erased from its project is left out: no contact, no event (its caller says why).
    sql`input as (
      select * from jsonb_to_recordset(${jsonb(rows)})
        as r(project_id uuid, email text, subscribed boolean, set jsonb, unset jsonb, hash text)
      where not exists (
        select 1 from erased_addresses x where x.project_id = r.project_id and x.address_hash = r.hash))`,
    // Index lookups, locked in input order so concurrent batches cannot deadlock.
    sql`old as (
      select c.id, c.subscribed from input i cross join lateral (
        select id, subscribed from contacts where project_id = i.project_id and email = i.email for update) c)`,
    sql`upserted as (
      insert into contacts as c (project_id, email, subscribed, data, created_at, updated_at)
      select i.project_id, i.email, coalesce(i.subscribed, ${u.subscribedByDefault}), i.set, ${u.now}, ${u.now}
      -- Counting old first makes it read the previous subscriptions before this insert changes them.
      from input i, (select count(*) from old) locked
      on conflict (project_id, email) do update set
        data = (c.data || excluded.data) - array(select jsonb_array_elements_text(i.unset) from input i
          where i.project_id = excluded.project_id and i.email = excluded.email),
        subscribed = coalesce((select i.subscribed from input i
          where i.project_id = excluded.project_id and i.email = excluded.email), c.subscribed),
        snoozed_until = case when (select i.subscribed from input i
          where i.project_id = excluded.project_id and i.email = excluded.email) is null then c.snoozed_until end,
        updated_at = ${u.now}
      returning c.*, (xmax = 0) as inserted)`,
  ];
  if (u.newTypes.length > 0) {
    const types = u.newTypes.map((t) => ({ project_id: t.projectId, key: t.key, type: t.type }));
    ctes.push(sql`types as (
      insert into contact_fields (project_id, key, type)
      select project_id, key, type from jsonb_to_recordset(${jsonb(types)}) as t(project_id uuid, key text, type text)
      on conflict do nothing)`);
  }
  if (u.events.length > 0) {
    const events = u.events.map((e, n) => ({
      n,
      id: e.id,
      project_id: e.projectId,
      email: e.email,
      name: e.name,
      data: e.data,
      at: e.at.toISOString(),
    }));
    ctes.push(
      storeEventsCte(
        'tracked',
        sql`select e.id, e.project_id, u.id, e.name, e.data, e.at
          from jsonb_to_recordset(${jsonb(events)})
            as e(n integer, id uuid, project_id uuid, email text, name text, data jsonb, at timestamptz)
          join upserted u on u.project_id = e.project_id and u.email = e.email
          order by e.n`,
        u.now,
        { withIds: true },
      ),
    );
  }
  const r = await run(
    ex,
    sql`
    with ${sql.join(ctes, sql`, `)}
    select u.*, o.subscribed as old_subscribed from upserted u left join old o on o.id = u.id`,
    { prepared: true },
  );
  return r.rows as UpsertedContactRow[];
}

export interface ContactChange {
  id: string;
  email?: string;
  subscribed?: boolean;
  /** undefined leaves the snooze alone; null ends it. */
  snoozedUntil?: Date | null;
  patch: DataPatch;
}

export type UpdatedContactRow = ContactRow & { old_subscribed: boolean };

/**
 * Applies changes to existing contacts of a project by id in one statement, locking them first;
 * returns the new rows with their previous subscription. Ids that match no contact are skipped.
 */
export async function updateContacts(
  ex: Executor,
  projectId: string,
  changes: ContactChange[],
  now: Date,
): Promise<UpdatedContactRow[]> {
  if (changes.length === 0) return [];
  const r = await run(ex, updateContactsStatement(projectId, changes, now));
  return r.rows as UpdatedContactRow[];
}

/**
 * The update of `updateContacts` (`changes` not empty), for a caller that writes its audit entry
 * with it; its columns by name, since that statement is prepared (see `audit.changeAudited`).
 */
export function updateContactsStatement(projectId: string, changes: ContactChange[], now: Date): SQL {
  const rows = changes.map((c) => ({
    id: c.id,
    email: c.email ?? null,
    subscribed: c.subscribed ?? null,
    // An explicit snooze sets its own state; an explicit subscription change ends a snooze.
    snooze: c.snoozedUntil !== undefined ? 'set' : c.subscribed !== undefined ? 'clear' : 'keep',
    snoozed_until: c.snoozedUntil ? c.snoozedUntil.toISOString() : null,
    set: c.patch.set,
    unset: c.patch.unset,
  }));
  return sql`
    update contacts c set
      email = coalesce(o.email, c.email),
      data = (c.data || o.set) - array(select jsonb_array_elements_text(o.unset)),
      subscribed = coalesce(o.subscribed, c.subscribed),
      snoozed_until = case o.snooze when 'set' then o.snoozed_until when 'clear' then null else c.snoozed_until end,
      updated_at = ${now}
    from (
      select c2.id, c2.subscribed as old_subscribed, r.email, r.subscribed, r.snooze, r.snoozed_until, r.set, r.unset
      from jsonb_to_recordset(${jsonb(rows.sort((a, b) => (a.id < b.id ? -1 : 1)))})
        as r(id uuid, email text, subscribed boolean, snooze text, snoozed_until timestamptz, set jsonb, unset jsonb)
      -- Index lookups, locked in id order so concurrent batches cannot deadlock.
      cross join lateral (
        select id, subscribed from contacts where project_id = ${projectId} and id = r.id for update) c2) o
    where c.id = o.id
    returning c.id, c.project_id, c.email, c.subscribed, c.snoozed_until, c.data, c.created_at, c.updated_at,
      o.old_subscribed`;
}

export async function recordFieldTypes(
  ex: Executor,
  projectId: string,
  types: Record<string, FieldType>,
): Promise<void> {
  if (Object.keys(types).length === 0) return;
  await run(
    ex,
    sql`
    insert into contact_fields (project_id, key, type)
    select ${projectId}, key, value from jsonb_each_text(${jsonb(types)})
    on conflict do nothing`,
  );
}

export async function findContact(ex: Executor, projectId: string, id: string): Promise<ContactRow | null> {
  const r = await run(ex, sql`select * from contacts where project_id = ${projectId} and id = ${id}`);
  return (r.rows[0] as ContactRow | undefined) ?? null;
}

/**
 * Deletes contacts with their events (by cascade), taking their dispatched events out of the daily
 * counts in the same statement so statistics stay those of the events that exist.
 */
export async function deleteContacts(ex: Executor, projectId: string, ids: string[]): Promise<string[]> {
  const r = await run(
    ex,
    sql`
    with targets as (
      select value::uuid as id from jsonb_array_elements_text(${jsonb(ids)})),
    ${uncountEventsOfContactsCte(projectId, sql`select id from targets`)}
    delete from contacts where project_id = ${projectId} and id in (select id from targets)
    returning id`,
  );
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

function searchFilter(search: string): SQL {
  return sql`email ilike ${likePattern(search)}`;
}

function listFilter(q: ListQuery): SQL {
  const parts: SQL[] = [sql`project_id = ${q.projectId}`];
  if (q.search) parts.push(searchFilter(q.search));
  if (q.subscribed !== undefined) parts.push(sql`subscribed = ${q.subscribed}`);
  return sql.join(parts, sql` and `);
}

/** How many rows a search reads in sort order before it fetches all its matches instead. */
const SEARCH_WALK_ROWS = 5000;

export async function listContacts(ex: Executor, q: ListQuery): Promise<ContactRow[]> {
  const column = q.sort === 'email' ? sql`email` : sql`created_at`;
  const direction = q.dir === 'asc' ? sql`asc` : sql`desc`;
  const filters = [listFilter({ ...q, search: undefined })];
  if (q.after) {
    const [value, id] = q.after;
    const typed = q.sort === 'email' ? sql`${value}::text` : sql`${value}::timestamptz`;
    filters.push(
      q.dir === 'asc' ? sql`(${column}, id) > (${typed}, ${id}::uuid)` : sql`(${column}, id) < (${typed}, ${id}::uuid)`,
    );
  }
  const scope = sql.join(filters, sql` and `);
  const order = sql`order by ${column} ${direction}, id ${direction}`;
  if (!q.search) {
    const r = await run(ex, sql`select * from contacts where ${scope} ${order} limit ${q.limit}`);
    return r.rows as ContactRow[];
  }
  /*
   * Left to itself the planner walks the sort index and filters, as if matches were spread evenly;
   * when they cluster at the far end (a term only old sign-ups match) that walk reads most of the
   * project: 870k rows, ~600 ms for 'user12' among 1M contacts. So the walk is bounded: a full page
   * found within the first rows is exactly the page asked for. Otherwise the matches are fetched through
   * the trigram index and sorted (`offset 0` keeps the planner from turning that back into the
   * walk), a cost that grows with the number of matches, as the count beside this query already does.
   */
  const walked = await run(
    ex,
    sql`
    select * from (select * from contacts where ${scope} ${order} limit ${SEARCH_WALK_ROWS}) first_rows
    where ${searchFilter(q.search)} ${order} limit ${q.limit}`,
  );
  if (walked.rows.length === q.limit) return walked.rows as ContactRow[];
  const r = await run(
    ex,
    sql`
    select * from (select * from contacts where ${scope} and ${searchFilter(q.search)} offset 0) matched
    ${order} limit ${q.limit}`,
  );
  return r.rows as ContactRow[];
}

export async function countContacts(ex: Executor, q: ListQuery): Promise<number> {
  const r = await run(ex, sql`select count(*)::int as n from contacts where ${listFilter(q)}`);
  return (r.rows[0] as { n: number }).n;
}

export async function lookupEmails(
  ex: Executor,
  projectId: string,
  emails: string[],
): Promise<{ id: string; email: string; subscribed: boolean }[]> {
  const r = await run(
    ex,
    sql`
    select id, email, subscribed from contacts
    where project_id = ${projectId} and email in (select value from jsonb_array_elements_text(${jsonb(emails)}))`,
  );
  return r.rows as { id: string; email: string; subscribed: boolean }[];
}

/** The addresses among `hashes` (email → erasure hash) that were erased from the project. */
export async function erasedAmong(ex: Executor, projectId: string, hashes: Map<string, string>): Promise<Set<string>> {
  if (hashes.size === 0) return new Set();
  const r = await run<{ address_hash: string }>(
    ex,
    sql`
    select address_hash from erased_addresses
    where project_id = ${projectId}
      and address_hash in (select value from jsonb_array_elements_text(${jsonb([...hashes.values()])}))`,
  );
  const erased = new Set(r.rows.map((row) => row.address_hash));
  return new Set([...hashes].filter(([, hash]) => erased.has(hash)).map(([email]) => email));
}

export async function typedKeys(ex: Executor, projectId: string): Promise<string[]> {
  const r = await run(ex, sql`select key from contact_fields where project_id = ${projectId}`);
  return (r.rows as { key: string }[]).map((row) => row.key);
}

export async function fieldTypes(ex: Executor, projectId: string): Promise<{ key: string; type: FieldType }[]> {
  const r = await run(ex, sql`select key, type from contact_fields where project_id = ${projectId} order by key`);
  return r.rows as { key: string; type: FieldType }[];
}

export async function fieldCoverage(
  ex: Executor,
  projectId: string,
): Promise<{ total: number; keys: Map<string, number> }> {
  const [total, keys] = await Promise.all([
    run(ex, sql`select count(*)::int as n from contacts where project_id = ${projectId}`),
    run(
      ex,
      sql`
      select key, count(*)::int as n from contacts, jsonb_object_keys(data) as key
      where project_id = ${projectId} group by key`,
    ),
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
  const r = await run(
    ex,
    sql`
    select ${expr} as value, count(*)::int as count from contacts
    where project_id = ${projectId} and ${expr} is not null
    group by 1 order by 2 desc, 1 limit ${limit}`,
  );
  return r.rows as { value: unknown; count: number }[];
}

export async function removeField(ex: Executor, projectId: string, key: string): Promise<number> {
  const r = await run(
    ex,
    sql`
    with changed as (
      update contacts set data = data - ${key} where project_id = ${projectId} and data ? ${key} returning 1)
    select count(*)::int as n from changed`,
  );
  return (r.rows[0] as { n: number }).n;
}
