import { type SQL, sql } from 'drizzle-orm';
import { TOPICS_CHANGED_EVENT } from '../../domain/event-names.js';
import { type Executor, run } from '../../platform/db/client.js';
import { storeEventsCte } from '../events/record.js';

/** Every query on `topics` and `contact_topics` lives here (docs/decisions.md, "Topics"). */

export interface TopicRow {
  id: string;
  project_id: string;
  name: string;
  description: string;
  public: boolean;
  default_on: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface TopicValues {
  name: string;
  description: string;
  public: boolean;
  defaultOn: boolean;
}

export async function insertTopic(ex: Executor, projectId: string, v: TopicValues, now: Date): Promise<TopicRow> {
  const r = await run<TopicRow>(
    ex,
    sql`insert into topics (project_id, name, description, public, default_on, created_at, updated_at)
      values (${projectId}, ${v.name}, ${v.description}, ${v.public}, ${v.defaultOn}, ${now}, ${now})
      returning *`,
  );
  return r.rows[0]!;
}

export async function findTopic(ex: Executor, projectId: string, id: string): Promise<TopicRow | null> {
  const r = await run<TopicRow>(ex, sql`select * from topics where id = ${id} and project_id = ${projectId}`);
  return r.rows[0] ?? null;
}

/** All the project's topics, oldest first: a project has a handful, never thousands. */
export async function allTopics(ex: Executor, projectId: string): Promise<TopicRow[]> {
  const r = await run<TopicRow>(ex, sql`select * from topics where project_id = ${projectId} order by created_at, id`);
  return r.rows;
}

/** Newest first, by keyset. */
export async function listTopics(
  ex: Executor,
  projectId: string,
  after: [string, string] | undefined,
  limit: number,
): Promise<TopicRow[]> {
  const r = await run<TopicRow>(
    ex,
    sql`select * from topics where project_id = ${projectId}
      ${after ? sql`and (created_at, id) < (${after[0]}::timestamptz, ${after[1]}::uuid)` : sql``}
      order by created_at desc, id desc limit ${limit}`,
  );
  return r.rows;
}

export async function countTopics(ex: Executor, projectId: string): Promise<number> {
  const r = await run<{ n: number }>(ex, sql`select count(*)::int as n from topics where project_id = ${projectId}`);
  return r.rows[0]!.n;
}

export async function updateTopic(
  ex: Executor,
  projectId: string,
  id: string,
  v: TopicValues,
  now: Date,
): Promise<TopicRow | null> {
  const r = await run<TopicRow>(
    ex,
    sql`update topics set name = ${v.name}, description = ${v.description}, public = ${v.public},
      default_on = ${v.defaultOn}, updated_at = ${now}
    where id = ${id} and project_id = ${projectId}
    returning *`,
  );
  return r.rows[0] ?? null;
}

/**
 * Before a topic's default changes, the contacts that never chose keep what they had: one row each
 * with the old default. One statement, on a rare change of a setting (docs/decisions.md, "Topics").
 */
export async function keepDefault(ex: Executor, projectId: string, topicId: string, was: boolean, now: Date) {
  await run(
    ex,
    sql`insert into contact_topics (topic_id, contact_id, subscribed, updated_at)
      select ${topicId}::uuid, c.id, ${was}, ${now} from contacts c where c.project_id = ${projectId}
      on conflict (topic_id, contact_id) do nothing`,
  );
}

export async function deleteTopic(ex: Executor, projectId: string, id: string): Promise<boolean> {
  const r = await run(ex, sql`delete from topics where id = ${id} and project_id = ${projectId} returning id`);
  return r.rows.length > 0;
}

/** The ids among `ids` that are topics of the project. */
export async function existingTopicIds(ex: Executor, projectId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const r = await run<{ id: string }>(
    ex,
    sql`select id from topics where project_id = ${projectId}
      and id in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`,
  );
  return new Set(r.rows.map((row) => row.id));
}

/**
 * Per topic: how many subscribed contacts receive it. A default-off topic counts its opt-in rows; a
 * default-on topic is every subscribed contact less its opt-out rows. One count of the project's
 * subscribed contacts (an index-only scan) and one pass over the choices, whatever the number of topics.
 */
export async function memberCounts(ex: Executor, projectId: string): Promise<Map<string, number>> {
  const r = await run<{ id: string; n: number }>(
    ex,
    sql`
    with subscribed as (
      select count(*)::int as n from contacts where project_id = ${projectId} and subscribed),
    choices as (
      select ct.topic_id, count(*) filter (where ct.subscribed)::int as opted_in,
        count(*) filter (where not ct.subscribed)::int as opted_out
      from contact_topics ct join contacts c on c.id = ct.contact_id and c.subscribed
      where ct.topic_id in (select id from topics where project_id = ${projectId})
      group by ct.topic_id)
    select t.id, case when t.default_on then (select n from subscribed) - coalesce(ch.opted_out, 0)
      else coalesce(ch.opted_in, 0) end as n
    from topics t left join choices ch on ch.topic_id = t.id
    where t.project_id = ${projectId}`,
  );
  return new Map(r.rows.map((row) => [row.id, row.n]));
}

export interface ChoiceRow {
  contact_id: string;
  topic_id: string;
  subscribed: boolean;
}

/** The choices these contacts made. */
export async function choicesOf(ex: Executor, projectId: string, contactIds: string[]): Promise<ChoiceRow[]> {
  if (contactIds.length === 0) return [];
  const r = await run<ChoiceRow>(
    ex,
    sql`select ct.contact_id, ct.topic_id, ct.subscribed from contact_topics ct
      join topics t on t.id = ct.topic_id and t.project_id = ${projectId}
      where ct.contact_id in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(contactIds)}::jsonb))`,
  );
  return r.rows;
}

export interface ChoiceWrite {
  contactId: string;
  topicId: string;
  subscribed: boolean;
}

/**
 * Stores choices of the project's contacts for the project's topics (others are left out), and
 * returns each stored one with what the contact had before (its choice, or else the topic's default).
 * In the same statement, each contact whose topics flipped gets one `contact.topics_changed` event
 * (with its outbox entry) naming the topics that flipped and their new state; no flip, no event.
 */
export async function writeChoices(
  ex: Executor,
  projectId: string,
  writes: ChoiceWrite[],
  now: Date,
  source: string,
): Promise<(ChoiceRow & { was: boolean })[]> {
  if (writes.length === 0) return [];
  const input = JSON.stringify(
    writes.map((w) => ({ contact_id: w.contactId, topic_id: w.topicId, subscribed: w.subscribed })),
  );
  const events = sql`
    select ${projectId}::uuid, f.contact_id, ${TOPICS_CHANGED_EVENT}::text,
      jsonb_build_object('email', c.email, 'source', ${source}::text, 'topics',
        jsonb_agg(jsonb_build_object('id', t.id, 'name', t.name, 'subscribed', f.subscribed) order by t.created_at, t.id)),
      ${now}::timestamptz
    from flipped f join contacts c on c.id = f.contact_id join topics t on t.id = f.topic_id
    group by f.contact_id, c.email`;
  const r = await run<ChoiceRow & { was: boolean }>(
    ex,
    sql`
    with input as (
      select i.contact_id, i.topic_id, i.subscribed, t.default_on
      from jsonb_to_recordset(${input}::jsonb) as i(contact_id uuid, topic_id uuid, subscribed boolean)
      join topics t on t.id = i.topic_id and t.project_id = ${projectId}
      join contacts c on c.id = i.contact_id and c.project_id = ${projectId}),
    before as (
      select i.contact_id, i.topic_id, coalesce(ct.subscribed, i.default_on) as was from input i
      left join contact_topics ct on ct.topic_id = i.topic_id and ct.contact_id = i.contact_id),
    written as (
      insert into contact_topics (topic_id, contact_id, subscribed, updated_at)
      select topic_id, contact_id, subscribed, ${now} from input
      on conflict (topic_id, contact_id) do update set subscribed = excluded.subscribed, updated_at = excluded.updated_at
      returning contact_id, topic_id, subscribed),
    flipped as (
      select w.contact_id, w.topic_id, w.subscribed from written w join before b using (contact_id, topic_id)
      where w.subscribed <> b.was),
    ${storeEventsCte('topic_events', events, now)}
    select w.contact_id, w.topic_id, w.subscribed, b.was from written w join before b using (contact_id, topic_id)`,
  );
  return r.rows;
}

/**
 * The condition, on contacts aliased `alias`, of receiving a topic: a choice to have it, or no
 * choice and the topic on by default. Each side is one probe of the primary key.
 */
export function memberSql(topicId: string, defaultOn: boolean, alias: SQL): SQL {
  return defaultOn
    ? sql`not exists (select 1 from contact_topics ct where ct.topic_id = ${topicId} and ct.contact_id = ${alias}.id and not ct.subscribed)`
    : sql`exists (select 1 from contact_topics ct where ct.topic_id = ${topicId} and ct.contact_id = ${alias}.id and ct.subscribed)`;
}

/** Whether each of these contacts receives the topic. */
export async function membersAmong(ex: Executor, topic: TopicRow, contactIds: string[]): Promise<Set<string>> {
  if (contactIds.length === 0) return new Set();
  const r = await run<{ id: string }>(
    ex,
    sql`select c.id from contacts c where c.project_id = ${topic.project_id}
      and c.id in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(contactIds)}::jsonb))
      and ${memberSql(topic.id, topic.default_on, sql.raw('c'))}`,
  );
  return new Set(r.rows.map((row) => row.id));
}
