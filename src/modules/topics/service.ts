import { type SQL, sql } from 'drizzle-orm';
import { iso } from '../../domain/formats.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import { isUniqueViolation } from '../../platform/db/errors.js';
import { notFound, validationError } from '../../platform/http/errors.js';
import {
  type CursorPage,
  type CursorValue,
  cursorPage,
  invalidCursorError,
  isKeysetCursor,
} from '../../platform/http/pagination.js';
import * as audit from '../audit/service.js';
import { type ConsentDetail, recordConsent } from '../consent/service.js';
import * as repo from './repo.js';
import type { ContactTopics, CreateTopicBody, PatchTopicBody, Topic } from './schemas.js';

/**
 * Topics: what a project's marketing mail is about, and which contacts receive each. Only the
 * choices contacts make are stored; a contact without one has the topic's default
 * (docs/decisions.md, "Topics"). `subscribed: false` on the contact still stops all marketing.
 */

export type { TopicRow } from './repo.js';

/** Where a change of a contact's topics came from. */
export type TopicSource =
  | 'api'
  | 'dashboard'
  | 'import'
  | 'workflow'
  | 'form'
  | 'unsubscribe_page'
  | 'one_click'
  | 'subscribe_page'
  | 'manage_page';

export interface TopicChange {
  contactId: string;
  topicId: string;
  subscribed: boolean;
}

/** A change that took effect: the contact now receives the topic (`subscribed`) or no longer does. */
export interface TopicFlip extends TopicChange {
  source: TopicSource;
}

/**
 * THE way a contact's topics change, whatever the path (API, dashboard, CSV import, UPDATE_CONTACT,
 * forms, unsubscribe and resubscribe links, one-click header, preference center): in the caller's
 * transaction, returning the changes that flipped what a contact receives. The consent history
 * records these, and each contact with a flip gets one `contact.topics_changed` event (webhooks,
 * workflows, its timeline) in the same transaction.
 * Changes naming a topic or contact of another project are left out (callers check ids first with
 * `checkTopicIds` where a request names them); the last change of a pair wins.
 */
export async function setTopicSubscriptions(
  ctx: AppContext,
  tx: Executor,
  projectId: string,
  changes: TopicChange[],
  source: TopicSource,
  consent: ConsentDetail = {},
): Promise<TopicFlip[]> {
  const last = new Map<string, TopicChange>();
  for (const c of changes) last.set(`${c.contactId} ${c.topicId}`, c);
  const now = ctx.clock.now();
  const rows = await repo.writeChoices(tx, projectId, [...last.values()], now, source);
  const flips = rows
    .filter((r) => r.was !== r.subscribed)
    .map((r) => ({ contactId: r.contact_id, topicId: r.topic_id, subscribed: r.subscribed, source }));
  await recordConsent(
    tx,
    flips.map((f) => ({
      projectId,
      contactId: f.contactId,
      topicId: f.topicId,
      change: f.subscribed ? ('subscribed' as const) : ('unsubscribed' as const),
      source,
      sourceId: consent.sourceId,
      consentText: consent.consentText,
      at: now,
    })),
  );
  return flips;
}

/** A contact's topics map as changes. */
export const changesOf = (contactId: string, topics: ContactTopics): TopicChange[] =>
  Object.entries(topics).map(([topicId, subscribed]) => ({ contactId, topicId, subscribed }));

/** 422 on `<field>.<id>` for an id that is no topic of the project. */
export async function checkTopicIds(ex: Executor, projectId: string, ids: string[], field = 'topics') {
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  const found = await repo.existingTopicIds(ex, projectId, unique);
  const unknown = unique.filter((id) => !found.has(id));
  if (unknown.length > 0) {
    throw validationError(
      unknown.map((id) => ({
        field: `${field}.${id}`,
        message: 'No topic of this project has this id',
        code: 'unknown_topic',
        received: id,
      })),
    );
  }
}

/** 422 on `field` when `topicId` is given and is no topic of the project. */
export async function checkTopicId(ex: Executor, projectId: string, topicId: string | null | undefined, field: string) {
  if (!topicId) return;
  if (!(await repo.findTopic(ex, projectId, topicId))) {
    throw validationError([
      { field, message: 'No topic of this project has this id', code: 'unknown_topic', received: topicId },
    ]);
  }
}

/** Per contact, every topic of the project → whether the contact receives it. */
export async function topicsOfContacts(
  ex: Executor,
  projectId: string,
  contactIds: string[],
): Promise<Map<string, ContactTopics>> {
  const topics = await repo.allTopics(ex, projectId);
  const result = new Map<string, ContactTopics>();
  for (const id of contactIds) result.set(id, Object.fromEntries(topics.map((t) => [t.id, t.default_on])));
  if (topics.length === 0) return result;
  for (const choice of await repo.choicesOf(ex, projectId, contactIds)) {
    const map = result.get(choice.contact_id);
    if (map) map[choice.topic_id] = choice.subscribed;
  }
  return result;
}

export async function topicsOfContact(ex: Executor, projectId: string, contactId: string): Promise<ContactTopics> {
  return (await topicsOfContacts(ex, projectId, [contactId])).get(contactId)!;
}

export const allTopics = repo.allTopics;
export const findTopic = repo.findTopic;
export const membersAmong = repo.membersAmong;

/**
 * The audience condition of a send about `topicId` on contacts aliased `alias`; a topic deleted
 * since the send named it matches nobody, so a send never widens to everyone.
 */
export async function topicAudienceSql(ex: Executor, projectId: string, topicId: string, alias: SQL): Promise<SQL> {
  const topic = await repo.findTopic(ex, projectId, topicId);
  return topic ? repo.memberSql(topic.id, topic.default_on, alias) : sql`false`;
}

function toTopic(row: repo.TopicRow, subscribers: number): Topic {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    description: row.description,
    public: row.public,
    defaultOn: row.default_on,
    subscribers,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

const duplicateName = (name: string) =>
  validationError([
    { field: 'name', message: 'Another topic of this project has this name', code: 'duplicate_name', received: name },
  ]);

/** Runs `work`, turning the unique index on the name into a 422 on `name`. */
async function namedUniquely<T>(name: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicateName(name);
    throw err;
  }
}

export async function createTopic(ctx: AppContext, projectId: string, body: CreateTopicBody): Promise<Topic> {
  const row = await namedUniquely(body.name, () =>
    audit.audited(
      ctx,
      (tx) => repo.insertTopic(tx, projectId, body, ctx.clock.now()),
      (t) => ({
        projectId,
        action: 'topic.created',
        target: { type: 'topic', id: t.id },
        changes: { name: t.name, public: t.public, defaultOn: t.default_on },
      }),
    ),
  );
  const counts = await repo.memberCounts(ctx.db, projectId);
  return toTopic(row, counts.get(row.id) ?? 0);
}

export async function listTopics(
  ctx: AppContext,
  projectId: string,
  q: { limit: number; cursor?: CursorValue[] },
): Promise<CursorPage<Topic>> {
  if (q.cursor && !isKeysetCursor(q.cursor, 'timestamp')) throw invalidCursorError();
  const [rows, total, counts] = await Promise.all([
    repo.listTopics(ctx.db, projectId, q.cursor as [string, string] | undefined, q.limit + 1),
    q.cursor ? 0 : repo.countTopics(ctx.db, projectId),
    repo.memberCounts(ctx.db, projectId),
  ]);
  const page = cursorPage(
    rows,
    q.limit,
    (r) => [iso(r.created_at), r.id],
    (r) => toTopic(r, counts.get(r.id) ?? 0),
  );
  return { ...page, total };
}

async function requireTopic(ctx: AppContext, projectId: string, id: string) {
  const row = await repo.findTopic(ctx.db, projectId, id);
  if (!row) throw notFound('Topic');
  return row;
}

export async function getTopic(ctx: AppContext, projectId: string, id: string): Promise<Topic> {
  const row = await requireTopic(ctx, projectId, id);
  return toTopic(row, (await repo.memberCounts(ctx.db, projectId)).get(row.id) ?? 0);
}

export async function updateTopic(
  ctx: AppContext,
  projectId: string,
  id: string,
  body: PatchTopicBody,
): Promise<Topic> {
  const current = await requireTopic(ctx, projectId, id);
  const values: repo.TopicValues = {
    name: body.name ?? current.name,
    description: body.description ?? current.description,
    public: body.public ?? current.public,
    defaultOn: body.defaultOn ?? current.default_on,
  };
  const row = await namedUniquely(values.name, () =>
    audit.audited(
      ctx,
      async (tx) => {
        const now = ctx.clock.now();
        // The default is for new contacts: those that never chose keep what they had.
        if (values.defaultOn !== current.default_on) await repo.keepDefault(tx, projectId, id, current.default_on, now);
        return repo.updateTopic(tx, projectId, id, values, now);
      },
      (t) => t && { projectId, action: 'topic.updated', target: { type: 'topic', id }, changes: audit.fieldsOf(body) },
    ),
  );
  if (!row) throw notFound('Topic');
  return toTopic(row, (await repo.memberCounts(ctx.db, projectId)).get(row.id) ?? 0);
}

export async function deleteTopic(ctx: AppContext, projectId: string, id: string): Promise<void> {
  const deleted = await audit.audited(
    ctx,
    (tx) => repo.deleteTopic(tx, projectId, id),
    (done) => (done ? { projectId, action: 'topic.deleted', target: { type: 'topic', id } } : null),
  );
  if (!deleted) throw notFound('Topic');
}
