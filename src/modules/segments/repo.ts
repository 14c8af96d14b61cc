import { type SQL, sql } from 'drizzle-orm';
import type { FilterCondition, SegmentRef } from '../../domain/filters/index.js';
import type { SampleCounts } from '../../domain/sample-estimate.js';
import { type Executor, run } from '../../platform/db/client.js';
import type { ContactRow } from '../contacts/service.js';
import { recordEventsFrom } from '../events/record.js';
import type { SegmentType } from './schemas.js';

/** Every query on `segments` and `segment_members` lives here. */

export interface SegmentRow {
  id: string;
  project_id: string;
  name: string;
  slug: string;
  description: string | null;
  type: SegmentType;
  condition: FilterCondition | null;
  track_membership: boolean;
  member_count: number;
  counted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewSegment {
  name: string;
  slug: string;
  description: string | null;
  type: SegmentType;
  condition: FilterCondition | null;
  trackMembership: boolean;
}

/** Inserts a segment; null when its slug is already taken in the project. */
export async function insertSegment(
  ex: Executor,
  projectId: string,
  v: NewSegment,
  now: Date,
): Promise<SegmentRow | null> {
  const r = await run<SegmentRow>(
    ex,
    sql`
    insert into segments (project_id, name, slug, description, type, condition, track_membership,
      created_at, updated_at)
    values (${projectId}, ${v.name}, ${v.slug}, ${v.description}, ${v.type},
      ${v.condition === null ? null : JSON.stringify(v.condition)}::jsonb, ${v.trackMembership}, ${now}, ${now})
    on conflict (project_id, slug) do nothing
    returning *`,
  );
  return r.rows[0] ?? null;
}

/** Slugs of the project that start with `base`, to pick a free one. */
export async function slugsLike(ex: Executor, projectId: string, base: string): Promise<string[]> {
  const r = await run<{ slug: string }>(
    ex,
    sql`
    select slug from segments where project_id = ${projectId} and left(slug, ${base.length}) = ${base}`,
  );
  return r.rows.map((row) => row.slug);
}

/** A segment of the project, or null; `lock` holds it until the transaction ends. */
export async function findSegment(
  ex: Executor,
  projectId: string,
  id: string,
  lock = false,
): Promise<SegmentRow | null> {
  const r = await run<SegmentRow>(
    ex,
    sql`
    select * from segments where project_id = ${projectId} and id = ${id} ${lock ? sql`for update` : sql``}`,
  );
  return r.rows[0] ?? null;
}

export async function listSegments(ex: Executor, projectId: string): Promise<SegmentRow[]> {
  const r = await run<SegmentRow>(
    ex,
    sql`select * from segments where project_id = ${projectId} order by created_at desc, id desc`,
  );
  return r.rows;
}

/** What the filter engine needs of every segment of a project. */
export async function projectSegmentRefs(ex: Executor, projectId: string): Promise<SegmentRef[]> {
  const r = await run<{ id: string; type: SegmentType; track_membership: boolean; condition: FilterCondition | null }>(
    ex,
    sql`select id, type, track_membership, condition from segments where project_id = ${projectId}`,
  );
  return r.rows.map((row) => ({
    id: row.id,
    type: row.type,
    trackMembership: row.track_membership,
    condition: row.condition,
  }));
}

export interface SegmentChange {
  name?: string;
  description?: string | null;
  condition?: FilterCondition;
  trackMembership?: boolean;
}

export async function updateSegment(
  ex: Executor,
  projectId: string,
  id: string,
  change: SegmentChange,
  now: Date,
): Promise<SegmentRow | null> {
  const sets: SQL[] = [sql`updated_at = ${now}`];
  if (change.name !== undefined) sets.push(sql`name = ${change.name}`);
  if (change.description !== undefined) sets.push(sql`description = ${change.description}`);
  if (change.condition !== undefined) sets.push(sql`condition = ${JSON.stringify(change.condition)}::jsonb`);
  if (change.trackMembership !== undefined) sets.push(sql`track_membership = ${change.trackMembership}`);
  const r = await run<SegmentRow>(
    ex,
    sql`
    update segments set ${sql.join(sets, sql`, `)} where project_id = ${projectId} and id = ${id} returning *`,
  );
  return r.rows[0] ?? null;
}

export async function deleteSegment(ex: Executor, projectId: string, id: string): Promise<boolean> {
  const r = await run(ex, sql`delete from segments where project_id = ${projectId} and id = ${id} returning id`);
  return r.rows.length > 0;
}

// ---------------------------------------------------------------------------------------------
// Counting and listing

/** Contacts of the project matching a compiled condition (see domain/filters/compile). */
/**
 * The contacts matching `condition`, and how many of them `recipient` also admits (the subscribed
 * rule of MARKETING campaigns), in one scan.
 */
export async function countMatchingSplit(
  ex: Executor,
  projectId: string,
  condition: SQL,
  recipient: SQL,
): Promise<{ total: number; subscribed: number }> {
  const r = await run<{ total: number; subscribed: number }>(
    ex,
    sql`select count(*)::int as total, (count(*) filter (where ${recipient}))::int as subscribed
      from contacts c where c.project_id = ${projectId} and (${condition})`,
  );
  return r.rows[0]!;
}

export async function countMatching(ex: Executor, projectId: string, condition: SQL): Promise<number> {
  const r = await run<{ n: number }>(
    ex,
    sql`select count(*)::int as n from contacts c where c.project_id = ${projectId} and (${condition})`,
  );
  return r.rows[0]!.n;
}

export async function countMembers(ex: Executor, segmentId: string): Promise<number> {
  const r = await run<{ n: number }>(
    ex,
    sql`select count(*)::int as n from segment_members where segment_id = ${segmentId}`,
  );
  return r.rows[0]!.n;
}

export async function setMemberCount(ex: Executor, id: string, count: number, now: Date): Promise<SegmentRow | null> {
  const r = await run<SegmentRow>(
    ex,
    sql`update segments set member_count = ${count}, counted_at = ${now} where id = ${id} returning *`,
  );
  return r.rows[0] ?? null;
}

/** The project of a segment, for jobs that know only its id; null once it is deleted. */
export async function segmentProject(ex: Executor, id: string): Promise<string | null> {
  const r = await run<{ project_id: string }>(ex, sql`select project_id from segments where id = ${id}`);
  return r.rows[0]?.project_id ?? null;
}

/** Ids of every segment, the least recently counted first, for the recurring refresh. */
export async function segmentsToCount(ex: Executor): Promise<{ id: string; project_id: string }[]> {
  const r = await run<{ id: string; project_id: string }>(
    ex,
    sql`select id, project_id from segments order by counted_at nulls first, id`,
  );
  return r.rows;
}

/** One page of the contacts matching a condition, newest first. */
export async function matchingContacts(
  ex: Executor,
  projectId: string,
  condition: SQL,
  window: { offset: number; limit: number },
): Promise<ContactRow[]> {
  const r = await run<ContactRow>(
    ex,
    sql`
    select c.* from contacts c where c.project_id = ${projectId} and (${condition})
    order by c.created_at desc, c.id desc offset ${window.offset} limit ${window.limit}`,
  );
  return r.rows;
}

/** One page of a segment's listed members, the most recently added first. */
export async function memberContacts(
  ex: Executor,
  segmentId: string,
  window: { offset: number; limit: number },
): Promise<ContactRow[]> {
  const r = await run<ContactRow>(
    ex,
    sql`
    select c.* from segment_members m join contacts c on c.id = m.contact_id
    where m.segment_id = ${segmentId}
    order by m.created_at desc, c.id desc offset ${window.offset} limit ${window.limit}`,
  );
  return r.rows;
}

// ---------------------------------------------------------------------------------------------
// Membership writes. Each is one statement: the member rows, the cached count and, for a segment
// that tracks its membership, an entry or exit event (with its outbox entry) per contact that changed.

interface Tracking {
  projectId: string;
  segmentId: string;
  slug: string;
  /** Emit `segment.<slug>.entry` / `.exit` for the contacts that changed. */
  emit: boolean;
  now: Date;
}

function membershipEvents(t: Tracking, kind: 'entry' | 'exit', source: string): SQL[] {
  if (!t.emit) return [];
  return [
    recordEventsFrom(kind, source, {
      projectId: t.projectId,
      name: `segment.${t.slug}.${kind}`,
      data: { segmentId: t.segmentId },
      at: t.now,
    }),
  ];
}

const contactIdsInput = (ids: string[]) =>
  sql`input as (select distinct value::uuid as contact_id
    from jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`;

/** Lists contacts (of the segment's project) as members; returns how many were not members yet. */
export async function addMembers(ex: Executor, t: Tracking, contactIds: string[]): Promise<number> {
  const ctes = [
    contactIdsInput(contactIds),
    sql`added as (
      insert into segment_members (segment_id, contact_id, created_at)
      select ${t.segmentId}::uuid, contact_id, ${t.now} from input
      on conflict do nothing
      returning contact_id)`,
    ...membershipEvents(t, 'entry', 'added'),
    sql`counted as (update segments set member_count = member_count + (select count(*) from added)
      where id = ${t.segmentId})`,
  ];
  const r = await run<{ n: number }>(ex, sql`with ${sql.join(ctes, sql`, `)} select count(*)::int as n from added`);
  return r.rows[0]!.n;
}

/** Unlists contacts; returns the ids of those that were members. */
export async function removeMembers(ex: Executor, t: Tracking, contactIds: string[]): Promise<string[]> {
  const ctes = [
    contactIdsInput(contactIds),
    sql`removed as (
      delete from segment_members m using input i
      where m.segment_id = ${t.segmentId} and m.contact_id = i.contact_id
      returning m.contact_id)`,
    ...membershipEvents(t, 'exit', 'removed'),
    sql`counted as (update segments set member_count = greatest(member_count - (select count(*) from removed), 0)
      where id = ${t.segmentId})`,
  ];
  const r = await run<{ contact_id: string }>(ex, sql`with ${sql.join(ctes, sql`, `)} select contact_id from removed`);
  return r.rows.map((row) => row.contact_id);
}

/**
 * Makes the member list of a tracked segment the set of contacts matching its condition now:
 * inserts the newcomers, deletes the leavers, emits their events and stores the count, set-wise in
 * one statement. Run it with the segment row locked, so two computations never interleave.
 */
export async function computeMembers(
  ex: Executor,
  t: Tracking,
  condition: SQL,
): Promise<{ entered: number; exited: number; members: number }> {
  const ctes = [
    sql`matched as materialized (select c.id from contacts c where c.project_id = ${t.projectId} and (${condition}))`,
    sql`entered as (
      insert into segment_members (segment_id, contact_id, created_at)
      select ${t.segmentId}::uuid, id, ${t.now} from matched
      on conflict do nothing
      returning contact_id)`,
    sql`exited as (
      delete from segment_members m
      where m.segment_id = ${t.segmentId} and not exists (select 1 from matched where matched.id = m.contact_id)
      returning m.contact_id)`,
    ...membershipEvents(t, 'entry', 'entered'),
    ...membershipEvents(t, 'exit', 'exited'),
    sql`counted as (update segments set member_count = (select count(*) from matched), counted_at = ${t.now}
      where id = ${t.segmentId})`,
  ];
  const r = await run<{ entered: number; exited: number; members: number }>(
    ex,
    sql`
    with ${sql.join(ctes, sql`, `)}
    select (select count(*) from entered)::int as entered, (select count(*) from exited)::int as exited,
      (select count(*) from matched)::int as members`,
  );
  return r.rows[0]!;
}

export async function clearMembers(ex: Executor, segmentId: string): Promise<void> {
  await run(ex, sql`delete from segment_members where segment_id = ${segmentId}`);
}

/** The static and tracked segments listing these contacts. */
export async function membershipsOf(
  ex: Executor,
  contactIds: string[],
): Promise<{ contact_id: string; segment_id: string }[]> {
  if (contactIds.length === 0) return [];
  const r = await run<{ contact_id: string; segment_id: string }>(
    ex,
    sql`
    select contact_id, segment_id from segment_members
    where contact_id in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(contactIds)}::jsonb))`,
  );
  return r.rows;
}

/**
 * Which of `dynamic` (segment ids with their compiled conditions) match the contact, and which
 * static or tracked segments list it: one statement, each condition checked against that one row.
 */
export async function segmentsOfContact(
  ex: Executor,
  projectId: string,
  contactId: string,
  dynamic: { id: string; condition: SQL }[],
): Promise<{ matching: string[]; listed: string[] }> {
  const checks = dynamic.map(
    (d) => sql`case when exists (select 1 from contacts c where c.id = ${contactId} and c.project_id = ${projectId}
      and (${d.condition})) then ${d.id}::uuid end`,
  );
  const r = await run<{ matching: string[] | null; listed: string[] | null }>(
    ex,
    sql`select
      ${checks.length ? sql`array_remove(array[${sql.join(checks, sql`, `)}], null)` : sql`'{}'::uuid[]`} as matching,
      (select array_agg(m.segment_id) from segment_members m where m.contact_id = ${contactId}) as listed`,
  );
  return { matching: r.rows[0]!.matching ?? [], listed: r.rows[0]!.listed ?? [] };
}

/** The planner's row count of the contacts table (all projects), from the last analyze. */
export async function contactTableRows(ex: Executor): Promise<number> {
  const r = await run<{ n: number }>(
    ex,
    sql`select greatest(reltuples, 0)::float8 as n from pg_class where oid = 'contacts'::regclass`,
  );
  return r.rows[0]?.n ?? 0;
}

/**
 * The rows on `percent` % of the contacts table's pages, picked at random: how many there are, how
 * many are the project's contacts, how many of those match, and how many matching ones `recipient`
 * also admits. The condition is judged once per row (`offset 0` keeps the planner from copying it
 * into each count).
 */
export async function sampleMatching(
  ex: Executor,
  projectId: string,
  condition: SQL,
  recipient: SQL,
  percent: number,
): Promise<SampleCounts & { matchedRecipients: number }> {
  const r = await run<SampleCounts & { matchedRecipients: number }>(
    ex,
    sql`select count(*)::int as rows, (count(*) filter (where s.mine))::int as sampled,
        (count(*) filter (where s.matched))::int as matched,
        (count(*) filter (where s.matched and s.recipient))::int as "matchedRecipients"
      from (select c.project_id = ${projectId} as mine,
              coalesce(c.project_id = ${projectId} and (${condition}), false) as matched,
              coalesce(${recipient}, false) as recipient
            from contacts c tablesample system (${percent}::float4) offset 0) s`,
  );
  return r.rows[0]!;
}

export async function countContacts(ex: Executor, projectId: string): Promise<number> {
  const r = await run<{ n: number }>(ex, sql`select count(*)::int as n from contacts where project_id = ${projectId}`);
  return r.rows[0]!.n;
}
