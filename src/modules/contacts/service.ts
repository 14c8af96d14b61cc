import { randomUUID } from 'node:crypto';
import {
  type DataPatch,
  emptyPatch,
  type FieldType,
  inferPatchTypes,
  mergeDataPatches,
  parseDataPatch,
} from '../../domain/contact-data.js';
import { ERASED_MESSAGE, erasedAddressHash } from '../../domain/erasure.js';
import { iso } from '../../domain/formats.js';
import type { AppContext } from '../../platform/context.js';
import { type Executor, retryingConflicts, type Tx } from '../../platform/db/client.js';
import { isUniqueViolation } from '../../platform/db/errors.js';
import { AppError, notFound, validationError } from '../../platform/http/errors.js';
import {
  type CursorPage,
  type CursorValue,
  cursorPage,
  invalidCursorError,
  isKeysetCursor,
} from '../../platform/http/pagination.js';
import { enqueue } from '../../platform/queue.js';
import * as audit from '../audit/service.js';
import { type ConsentDetail, flipChange, recordConsent } from '../consent/service.js';
import { recordEvent } from '../events/record.js';
import { type EventListQuery, listEvents } from '../events/service.js';
import type { ContactTopics } from '../topics/schemas.js';
import {
  changesOf,
  checkTopicIds,
  setTopicSubscriptions,
  type TopicSource,
  topicsOfContacts,
} from '../topics/service.js';
import { knownFieldTypes } from './field-types.js';
import type { ContactRow, ListQuery } from './repo.js';
import * as repo from './repo.js';
import type { Contact, CreateContactBody } from './schemas.js';

/** Reads other modules make of contacts in their own transactions. */
export { type ContactRow, fieldTypes, findContact, lookupEmails } from './repo.js';

export function toContact(row: ContactRow): Contact {
  return {
    id: row.id,
    email: row.email,
    subscribed: row.subscribed,
    snoozedUntil: iso(row.snoozed_until),
    data: row.data,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export const SNOOZE_END_QUEUE = 'contacts.snooze-end';

export interface UpsertInput {
  email: string;
  /** Explicit subscription; omitted keeps an existing contact's state. */
  subscribed?: boolean;
  patch: DataPatch;
}

export interface UpsertOptions {
  projectId: string;
  /** The state of a new contact when `subscribed` is omitted: it differs per endpoint. */
  subscribedByDefault: boolean;
  /** Stored on subscription events, to tell which path changed the subscription. */
  source: string;
  /**
   * For the consent history: the form, job or email of the change, and the consent text shown. Given,
   * new contacts are recorded too, with the state they start in.
   */
  consent?: ConsentDetail;
  /** The moment of the request, when the caller reports it; now otherwise. */
  at?: Date;
}

export interface UpsertResult {
  contact: ContactRow;
  isNew: boolean;
  /** The event recorded with the upsert, when one was asked for. */
  eventId: string | null;
}

/**
 * Emits contact.subscribed / contact.unsubscribed for a contact whose subscription flipped, and adds
 * the flip to its consent history.
 */
export async function emitSubscriptionChange(
  ctx: AppContext,
  ex: Executor,
  before: boolean | null,
  row: ContactRow,
  data: { source: string; snoozedUntil?: string },
  consent: ConsentDetail = {},
) {
  if (before === null || before === row.subscribed) return;
  const at = ctx.clock.now();
  await recordEvent(ex, {
    projectId: row.project_id,
    contactId: row.id,
    name: row.subscribed ? 'contact.subscribed' : 'contact.unsubscribed',
    data,
    at,
  });
  await recordConsent(ex, [
    {
      ...consent,
      projectId: row.project_id,
      contactId: row.id,
      change: consent.change ?? flipChange(row.subscribed, data.source, row.snoozed_until !== null),
      source: data.source,
      at,
    },
  ]);
}

/** A contact change of a batch, with the events it records (each with the id it is to have). */
export interface ContactWrite {
  projectId: string;
  input: UpsertInput;
  events: { id: string; name: string; data: Record<string, unknown>; at: Date }[];
  /** For the consent history, where it differs from write to write of one batch (the visitor of each form submission). */
  consent?: ConsentDetail;
}

const contactKey = (w: ContactWrite) => `${w.projectId} ${w.input.email}`;

/** The same email twice in one batch is one contact: its changes apply in order. */
function mergeByContact(writes: ContactWrite[]): ContactWrite[] {
  const merged = new Map<string, ContactWrite>();
  for (const write of writes) {
    const prior = merged.get(contactKey(write));
    merged.set(
      contactKey(write),
      prior
        ? {
            projectId: write.projectId,
            input: {
              email: write.input.email,
              subscribed: write.input.subscribed ?? prior.input.subscribed,
              patch: mergeDataPatches(prior.input.patch, write.input.patch),
            },
            events: [...prior.events, ...write.events],
            consent: write.consent ?? prior.consent,
          }
        : write,
    );
  }
  return [...merged.values()];
}

/** Per project, the types of the keys a batch stores that the project has not typed yet. */
async function newFieldTypes(ex: Executor, writes: ContactWrite[]) {
  const byProject = new Map<string, Record<string, FieldType>>();
  for (const w of writes) {
    const types = byProject.get(w.projectId) ?? {};
    for (const [k, t] of Object.entries(inferPatchTypes(w.input.patch))) types[k] ??= t;
    byProject.set(w.projectId, types);
  }
  const rows: { projectId: string; key: string; type: FieldType }[] = [];
  for (const [projectId, types] of byProject) {
    for (const [key, type] of Object.entries(await knownFieldTypes.untyped(ex, projectId, types))) {
      rows.push({ projectId, key, type });
    }
  }
  return rows;
}

/**
 * Creates or updates contacts of any projects by email and records their events: one statement
 * whatever the batch size, plus one per subscription that flipped. Pass a transaction when an input
 * sets `subscribed`, so the flip events commit with the change. Results follow the order of `writes`.
 */
export async function writeContacts(
  ctx: AppContext,
  ex: Executor,
  writes: ContactWrite[],
  options: Omit<UpsertOptions, 'projectId'>,
): Promise<Omit<UpsertResult, 'eventId'>[]> {
  if (writes.length === 0) return [];
  const unique = mergeByContact(writes);
  const now = options.at ?? ctx.clock.now();
  const rows = await repo.upsertContacts(ex, {
    rows: unique.map((w) => ({
      projectId: w.projectId,
      email: w.input.email,
      subscribed: w.input.subscribed ?? null,
      set: w.input.patch.set,
      unset: w.input.patch.unset,
      hash: erasedAddressHash(ctx.erasureSalt, w.projectId, w.input.email),
    })),
    subscribedByDefault: options.subscribedByDefault,
    newTypes: await newFieldTypes(ex, unique),
    events: unique.flatMap((w) => w.events.map((e) => ({ ...e, projectId: w.projectId, email: w.input.email }))),
    now,
  });
  const results = new Map<string, Omit<UpsertResult, 'eventId'>>();
  const consentOf = new Map(unique.map((w) => [contactKey(w), w.consent ?? options.consent]));
  for (const row of rows) {
    const key = `${row.project_id} ${row.email}`;
    results.set(key, { contact: row, isNew: row.inserted });
    await emitSubscriptionChange(ctx, ex, row.old_subscribed, row, { source: options.source }, consentOf.get(key));
  }
  // An address erased from its project was left out: the whole write is refused, so a caller in a
  // transaction keeps nothing of it (/v1/track then writes its batch's requests one by one).
  if (results.size < unique.length) throw addressErasedError();
  await recordConsent(ex, createdWithConsent(unique, results, options, now));
  return writes.map((w) => results.get(contactKey(w))!);
}

/** 422 ADDRESS_ERASED: the address was erased from the project, and the project keeps it out. */
export function addressErasedError(): AppError {
  return new AppError(422, 'ADDRESS_ERASED', ERASED_MESSAGE, {
    suggestion:
      'Nothing was stored. If the person asks to be added again, an admin can turn off "Keep erased addresses out" in the project’s privacy settings (Settings page, or PATCH /privacy-settings).',
  });
}

/** Which of these addresses were erased from the project (an import leaves them out, row by row). */
export async function erasedAddresses(ctx: AppContext, ex: Executor, projectId: string, emails: string[]) {
  return repo.erasedAmong(
    ex,
    projectId,
    new Map(emails.map((e) => [e, erasedAddressHash(ctx.erasureSalt, projectId, e)])),
  );
}

/**
 * New contacts start their consent history on the paths that create contacts on purpose (the API,
 * the dashboard, an import, a form: those passing `consent`). A contact created as a side effect (by
 * a tracked event, a send, a segment) has given no consent, so it has nothing to record.
 */
function createdWithConsent(
  writes: ContactWrite[],
  results: Map<string, Omit<UpsertResult, 'eventId'>>,
  options: Omit<UpsertOptions, 'projectId'>,
  at: Date,
) {
  return writes.flatMap((w) => {
    const result = results.get(contactKey(w));
    const consent = w.consent ?? options.consent;
    if (!consent || !result?.isNew) return [];
    const { contact } = result;
    return [
      {
        ...consent,
        projectId: contact.project_id,
        contactId: contact.id,
        change: consent.change ?? (contact.subscribed ? ('subscribed' as const) : ('unsubscribed' as const)),
        source: options.source,
        at,
      },
    ];
  });
}

/**
 * The one way to create-or-update contacts by email (contacts, track, send, imports, workflows):
 * `writeContacts` for one project, with the optional event recorded once per contact.
 */
export async function upsertContacts(
  ctx: AppContext,
  ex: Executor,
  inputs: UpsertInput[],
  options: UpsertOptions & { event?: { name: string; data: Record<string, unknown> } },
): Promise<UpsertResult[]> {
  const at = options.at ?? ctx.clock.now();
  const eventIds = new Map<string, string>();
  const writes = inputs.map((input): ContactWrite => {
    const event = options.event && !eventIds.has(input.email) ? { id: randomUUID(), ...options.event, at } : null;
    if (event) eventIds.set(input.email, event.id);
    return { projectId: options.projectId, input, events: event ? [event] : [] };
  });
  const results = await writeContacts(ctx, ex, writes, { ...options, at });
  return results.map((r, i) => ({ ...r, eventId: eventIds.get(inputs[i]!.email) ?? null }));
}

export async function upsertContact(
  ctx: AppContext,
  ex: Executor,
  input: UpsertInput,
  options: UpsertOptions & { event?: { name: string; data: Record<string, unknown> } },
): Promise<UpsertResult> {
  const [result] = await upsertContacts(ctx, ex, [input], options);
  return result!;
}

/** The contacts with their topics (`topics` of the API). */
export async function withTopicsAll(ex: Executor, projectId: string, contacts: Contact[]): Promise<Contact[]> {
  const topics = await topicsOfContacts(
    ex,
    projectId,
    contacts.map((c) => c.id),
  );
  return contacts.map((c) => ({ ...c, topics: topics.get(c.id) ?? {} }));
}

export async function withTopics(ex: Executor, projectId: string, contact: Contact): Promise<Contact> {
  return (await withTopicsAll(ex, projectId, [contact]))[0]!;
}

const TOPIC_SOURCES: readonly string[] = ['api', 'dashboard', 'import', 'workflow', 'form', 'manage_page'];
const topicSource = (source: string | undefined): TopicSource =>
  (TOPIC_SOURCES.includes(source ?? 'api') ? (source ?? 'api') : 'api') as TopicSource;

/** The fields a contact change names, `data.<key>` for its data: never their values (personal data). */
function contactFields(change: {
  email?: string;
  subscribed?: boolean;
  snoozedUntil?: Date | null;
  data?: unknown;
  topics?: unknown;
}) {
  const fields = (['email', 'subscribed', 'snoozedUntil', 'topics'] as const).filter((f) => change[f] !== undefined);
  const data = change.data && typeof change.data === 'object' ? Object.keys(change.data).map((k) => `data.${k}`) : [];
  return { fields: [...fields, ...data] };
}

/** POST /contacts: creates the contact, or updates the one with this address. */
export async function createContact(
  ctx: AppContext,
  projectId: string,
  body: CreateContactBody,
): Promise<{ contact: Contact; isNew: boolean }> {
  if (body.topics) await checkTopicIds(ctx.db, projectId, Object.keys(body.topics));
  const { contact, isNew } = await ctx.db.transaction(async (tx) => {
    const upserted = await upsertContact(
      ctx,
      tx,
      { email: body.email, subscribed: body.subscribed, patch: parseDataPatch(body.data) },
      { projectId, subscribedByDefault: true, source: 'api', consent: {} },
    );
    if (body.topics) {
      await setTopicSubscriptions(ctx, tx, projectId, changesOf(upserted.contact.id, body.topics), 'api');
    }
    await audit.record(tx, {
      projectId,
      action: upserted.isNew ? 'contact.created' : 'contact.updated',
      target: { type: 'contact', id: upserted.contact.id },
      changes: contactFields(body),
    });
    return upserted;
  });
  return { contact: await withTopics(ctx.db, projectId, toContact(contact)), isNew };
}

export interface ContactUpdate {
  email?: string;
  subscribed?: boolean;
  snoozedUntil?: Date | null;
  patch: DataPatch;
  /** Topic id → receives it, for the topics it names. */
  topics?: ContactTopics;
  /** Stored on the subscription event; `api` unless another path made the change. */
  source?: string;
  /** For the consent history: the form, job or email of the change, and the consent text shown. */
  consent?: ConsentDetail;
}

export async function updateContactById(
  ctx: AppContext,
  projectId: string,
  id: string,
  change: ContactUpdate,
): Promise<Contact> {
  const now = ctx.clock.now();
  if (change.snoozedUntil && change.snoozedUntil.getTime() <= now.getTime()) {
    throw validationError([
      {
        field: 'snoozedUntil',
        message: 'Must be in the future',
        code: 'too_small',
        received: change.snoozedUntil.toISOString(),
      },
    ]);
  }
  if (change.snoozedUntil && change.subscribed === true) {
    throw validationError([
      {
        field: 'subscribed',
        message: 'A snoozed contact is unsubscribed until the snooze ends',
        code: 'custom',
        received: true,
      },
    ]);
  }
  if (change.topics) await checkTopicIds(ctx.db, projectId, Object.keys(change.topics));
  try {
    const updated = await ctx.db.transaction(async (tx) => {
      // A new address that was erased from the project is kept out here too.
      if (change.email && (await erasedAddresses(ctx, tx, projectId, [change.email])).size > 0)
        throw addressErasedError();
      // The entry is written by the contact's update itself: no round trip of its own.
      const row = await changeContact(ctx, tx, projectId, id, change, now, {
        projectId,
        action: 'contact.updated',
        target: { type: 'contact', id },
        changes: contactFields({
          ...change,
          data: { ...change.patch.set, ...Object.fromEntries(change.patch.unset.map((k) => [k, null])) },
        }),
      });
      if (!row) throw notFound('Contact');
      return toContact(row);
    });
    return await withTopics(ctx.db, projectId, updated);
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new AppError(409, 'EMAIL_ALREADY_EXISTS', 'Another contact in this project already uses this email', {
        details: { email: change.email },
        suggestion: 'Choose another email, or update the contact that already has it.',
      });
    }
    throw err;
  }
}

/**
 * Applies a change to one contact inside the caller's transaction: the `data` patch with its field
 * types, the subscription (with its event) and a snooze (with the job that ends it). Null when the
 * contact is not the project's. With `entry`, the contact's update writes it (`audit.changeAudited`).
 */
export async function changeContact(
  ctx: AppContext,
  tx: Tx,
  projectId: string,
  id: string,
  change: ContactUpdate,
  now: Date,
  entry?: audit.StatementRecord,
): Promise<ContactRow | null> {
  const current = await repo.findContact(tx, projectId, id);
  if (!current) return null;
  // Snoozing pauses the subscription; ending a running snooze resumes it unless told otherwise.
  const resumes = change.snoozedUntil === null && current.snoozed_until !== null;
  const subscribed = change.subscribed ?? (change.snoozedUntil ? false : resumes ? true : undefined);
  await repo.recordFieldTypes(
    tx,
    projectId,
    await knownFieldTypes.untyped(tx, projectId, inferPatchTypes(change.patch)),
  );
  const changes = [{ ...change, id, subscribed }];
  const [row] = entry
    ? await audit.changeAudited<repo.UpdatedContactRow>(
        tx,
        repo.updateContactsStatement(projectId, changes, now),
        entry,
      )
    : await repo.updateContacts(tx, projectId, changes, now);
  if (!row) return null;
  if (change.topics) {
    await setTopicSubscriptions(
      ctx,
      tx,
      projectId,
      changesOf(id, change.topics),
      topicSource(change.source),
      change.consent,
    );
  }
  await emitSubscriptionChange(
    ctx,
    tx,
    row.old_subscribed,
    row,
    {
      source: change.source ?? 'api',
      ...(row.snoozed_until ? { snoozedUntil: new Date(row.snoozed_until).toISOString() } : {}),
    },
    change.consent,
  );
  if (change.snoozedUntil) {
    await enqueue(tx, SNOOZE_END_QUEUE, { projectId, contactId: id }, { runAt: change.snoozedUntil });
  }
  return row;
}

/** Sets the subscription of contacts by id; returns the contacts found, and whether each one's changed. */
export async function setSubscription(
  ctx: AppContext,
  tx: Tx,
  projectId: string,
  ids: string[],
  subscribed: boolean,
  source: string,
  consent?: ConsentDetail,
) {
  const rows = await repo.updateContacts(
    tx,
    projectId,
    ids.map((id) => ({ id, subscribed, patch: emptyPatch() })),
    ctx.clock.now(),
  );
  for (const row of rows) await emitSubscriptionChange(ctx, tx, row.old_subscribed, row, { source }, consent);
  // `changed`: the subscription flipped (a repeated unsubscribe changes nothing).
  return rows.map((r) => ({ id: r.id, changed: r.old_subscribed !== null && r.old_subscribed !== r.subscribed }));
}

/** Resubscribes a contact whose snooze has passed; a later or cancelled snooze makes this a no-op. */
export async function endSnooze(ctx: AppContext, projectId: string, contactId: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const row = await repo.findContact(tx, projectId, contactId);
    if (!row?.snoozed_until || new Date(row.snoozed_until).getTime() > ctx.clock.now().getTime()) return;
    const [updated] = await repo.updateContacts(
      tx,
      projectId,
      [{ id: contactId, subscribed: true, snoozedUntil: null, patch: emptyPatch() }],
      ctx.clock.now(),
    );
    if (updated) await emitSubscriptionChange(ctx, tx, updated.old_subscribed, updated, { source: 'snooze_ended' });
  });
}

export async function getContact(ctx: AppContext, projectId: string, id: string): Promise<Contact> {
  const row = await repo.findContact(ctx.db, projectId, id);
  if (!row) throw notFound('Contact');
  return withTopics(ctx.db, projectId, toContact(row));
}

/**
 * Deleting a contact cascades into every table that holds its rows, so it can lose a deadlock to a
 * concurrent write of some of them (an erase's batch, a topic's choices).
 */
export async function deleteContact(ctx: AppContext, projectId: string, id: string): Promise<void> {
  await retryingConflicts(() =>
    ctx.db.transaction(async (tx) => {
      const deleted = await repo.deleteContacts(tx, projectId, [id]);
      if (deleted.length === 0) throw notFound('Contact');
      await audit.record(tx, { projectId, action: 'contact.deleted', target: { type: 'contact', id } });
    }),
  );
}

/** A client can forge any JSON as a cursor; only the shape we issue for this sort may reach the SQL casts. */
/** A page of contacts from the list's query as clients send it (`cursor` for the keyset), for the route and the MCP tool. */
export function contactsPage(
  ctx: AppContext,
  projectId: string,
  q: Omit<ListQuery, 'projectId' | 'after'> & { cursor?: CursorValue[] },
): Promise<CursorPage<Contact>> {
  const { cursor, search, subscribed, sort, dir, limit } = q;
  return listContacts(ctx, { projectId, search, subscribed, sort, dir, after: cursor, limit });
}

export async function listContacts(ctx: AppContext, q: ListQuery): Promise<CursorPage<Contact>> {
  if (q.after && !isKeysetCursor(q.after, q.sort === 'email' ? 'text' : 'timestamp')) throw invalidCursorError();
  const [rows, total] = await Promise.all([
    repo.listContacts(ctx.db, { ...q, limit: q.limit + 1 }),
    q.after ? Promise.resolve(0) : repo.countContacts(ctx.db, q),
  ]);
  const keyOf = (row: ContactRow) => [q.sort === 'email' ? row.email : new Date(row.created_at).toISOString(), row.id];
  const page = cursorPage(rows, q.limit, keyOf, toContact);
  return { ...page, data: await withTopicsAll(ctx.db, q.projectId, page.data), total };
}

export async function lookupContacts(ctx: AppContext, projectId: string, emails: string[]) {
  const found = new Map((await repo.lookupEmails(ctx.db, projectId, emails)).map((r) => [r.email, r.id]));
  return emails.map((email) => ({ email, exists: found.has(email), contactId: found.get(email) ?? null }));
}

/** A contact's events, newest first: 404 for a contact the project does not have. */
export async function contactEvents(ctx: AppContext, q: EventListQuery & { contactId: string }) {
  if (!(await repo.findContact(ctx.db, q.projectId, q.contactId))) throw notFound('Contact');
  return listEvents(ctx, q);
}
