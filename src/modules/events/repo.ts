import { type SQL, sql } from 'drizzle-orm';
import { type Executor, run } from '../../platform/db/client.js';
import type { CursorValue } from '../../platform/http/pagination.js';

export interface EventRow {
  id: string;
  contact_id: string;
  email: string;
  name: string;
  data: Record<string, unknown>;
  created_at: Date;
}

export interface EventListQuery {
  projectId: string;
  name?: string;
  contactId?: string;
  since?: Date;
  until?: Date;
  dir: 'asc' | 'desc';
  after?: CursorValue[];
  limit: number;
}

function filters(q: EventListQuery): SQL[] {
  const parts: SQL[] = [sql`e.project_id = ${q.projectId}`];
  if (q.name) parts.push(sql`e.name = ${q.name}`);
  if (q.contactId) parts.push(sql`e.contact_id = ${q.contactId}`);
  if (q.since) parts.push(sql`e.created_at >= ${q.since}`);
  if (q.until) parts.push(sql`e.created_at < ${q.until}`);
  return parts;
}

export async function listEvents(ex: Executor, q: EventListQuery): Promise<EventRow[]> {
  const where = filters(q);
  const dir = q.dir === 'asc' ? sql`asc` : sql`desc`;
  if (q.after) {
    const [at, id] = q.after;
    where.push(
      q.dir === 'asc'
        ? sql`(e.created_at, e.id) > (${at}::timestamptz, ${id}::uuid)`
        : sql`(e.created_at, e.id) < (${at}::timestamptz, ${id}::uuid)`,
    );
  }
  const r = await run(
    ex,
    sql`
    select e.id, e.contact_id, c.email, e.name, e.data, e.created_at
    from events e join contacts c on c.id = e.contact_id
    where ${sql.join(where, sql` and `)}
    order by e.created_at ${dir}, e.id ${dir}
    limit ${q.limit}`,
  );
  return r.rows as EventRow[];
}

export async function countEvents(ex: Executor, q: EventListQuery): Promise<number> {
  const r = await run(ex, sql`select count(*)::int as n from events e where ${sql.join(filters(q), sql` and `)}`);
  return (r.rows[0] as { n: number }).n;
}

export async function eventStats(ex: Executor, projectId: string, since: Date, until: Date) {
  const r = await run(
    ex,
    sql`
    select name, count(*)::int as count, count(distinct contact_id)::int as contacts, max(created_at) as last_seen_at
    from events
    where project_id = ${projectId} and created_at >= ${since} and created_at < ${until}
    group by name order by count desc, name`,
  );
  return r.rows as { name: string; count: number; contacts: number; last_seen_at: Date }[];
}

export async function distinctContacts(ex: Executor, projectId: string, since: Date, until: Date): Promise<number> {
  const r = await run(
    ex,
    sql`
    select count(distinct contact_id)::int as n from events
    where project_id = ${projectId} and created_at >= ${since} and created_at < ${until}`,
  );
  return (r.rows[0] as { n: number }).n;
}

/** Distinct names by walking the (project, name) index one name at a time, not scanning every event. */
export async function eventNames(ex: Executor, projectId: string): Promise<string[]> {
  const r = await run(
    ex,
    sql`
    with recursive names as (
      (select name from events where project_id = ${projectId} order by name limit 1)
      union all
      select (select e.name from events e where e.project_id = ${projectId} and e.name > names.name
        order by e.name limit 1)
      from names where names.name is not null)
    select name from names where name is not null`,
  );
  return (r.rows as { name: string }[]).map((row) => row.name);
}

/** The data of the project's latest `limit` events named `name`. */
export async function recentEventData(
  ex: Executor,
  projectId: string,
  name: string,
  limit: number,
): Promise<Record<string, unknown>[]> {
  const r = await run<{ data: Record<string, unknown> }>(
    ex,
    sql`select data from events where project_id = ${projectId} and name = ${name} order by created_at desc limit ${limit}`,
  );
  return r.rows.map((row) => row.data);
}

export async function deleteEventsNamed(ex: Executor, projectId: string, name: string): Promise<number> {
  // The counts first, in the order the counting statements take them: deleting a contact takes its
  // counts before its events too, so the two never wait on each other in a cycle.
  await run(
    ex,
    sql`select 1 from event_daily_counts where project_id = ${projectId} and name = ${name} order by day for update`,
  );
  const r = await run(
    ex,
    sql`
    with gone as (delete from events where project_id = ${projectId} and name = ${name} returning 1),
    uncounted as (delete from event_daily_counts where project_id = ${projectId} and name = ${name})
    select count(*)::int as n from gone`,
  );
  return (r.rows[0] as { n: number }).n;
}

/** The events of these contacts with these names (for judging one contact at a time in memory). */
export async function eventsOfContacts(
  ex: Executor,
  contactIds: string[],
  names: string[],
): Promise<{ contact_id: string; name: string; created_at: Date }[]> {
  if (contactIds.length === 0 || names.length === 0) return [];
  const r = await run<{ contact_id: string; name: string; created_at: Date }>(
    ex,
    sql`
    select contact_id, name, created_at from events
    where contact_id in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(contactIds)}::jsonb))
      and name in (select value from jsonb_array_elements_text(${JSON.stringify(names)}::jsonb))`,
  );
  return r.rows;
}

/**
 * Deletes up to `limit` of a project's events older than `before`, oldest first; returns how many.
 * Both conditions on `created_at` let each side visit only the partitions old enough.
 */
export async function deleteEventsBefore(
  ex: Executor,
  projectId: string,
  before: Date,
  limit: number,
): Promise<number> {
  const r = await run(
    ex,
    sql`
    with gone as (
      delete from events where created_at < ${before} and (id, created_at) in (
        select id, created_at from events
        where project_id = ${projectId} and created_at < ${before}
        order by created_at limit ${limit})
      returning 1)
    select count(*)::int as n from gone`,
  );
  return (r.rows[0] as { n: number }).n;
}
