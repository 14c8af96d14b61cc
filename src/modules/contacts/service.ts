import { randomUUID } from 'node:crypto';
import {
  type DataPatch,
  emptyPatch,
  type FieldType,
  inferPatchTypes,
  mergeDataPatches,
  parseDataPatch,
} from '../../domain/contact-data.js';
import { iso } from '../../domain/formats.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor, Tx } from '../../platform/db/client.js';
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
import { recordEvent } from '../events/record.js';
import { type EventListQuery, listEvents } from '../events/service.js';
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
  /** The moment of the request, when the caller reports it; now otherwise. */
  at?: Date;
}

export interface UpsertResult {
  contact: ContactRow;
  isNew: boolean;
  /** The event recorded with the upsert, when one was asked for. */
  eventId: string | null;
}

/** Emits contact.subscribed / contact.unsubscribed for a contact whose subscription flipped. */
export async function emitSubscriptionChange(
  ctx: AppContext,
  ex: Executor,
  before: boolean | null,
  row: ContactRow,
  data: Record<string, unknown>,
) {
  if (before === null || before === row.subscribed) return;
  await recordEvent(ex, {
    projectId: row.project_id,
    contactId: row.id,
    name: row.subscribed ? 'contact.subscribed' : 'contact.unsubscribed',
    data,
    at: ctx.clock.now(),
  });
}

/** A contact change of a batch, with the events it records (each with the id it is to have). */
export interface ContactWrite {
  projectId: string;
  input: UpsertInput;
  events: { id: string; name: string; data: Record<string, unknown>; at: Date }[];
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
  const rows = await repo.upsertContacts(ex, {
    rows: unique.map((w) => ({
      projectId: w.projectId,
      email: w.input.email,
      subscribed: w.input.subscribed ?? null,
      set: w.input.patch.set,
      unset: w.input.patch.unset,
    })),
    subscribedByDefault: options.subscribedByDefault,
    newTypes: await newFieldTypes(ex, unique),
    events: unique.flatMap((w) => w.events.map((e) => ({ ...e, projectId: w.projectId, email: w.input.email }))),
    now: options.at ?? ctx.clock.now(),
  });
  const results = new Map<string, Omit<UpsertResult, 'eventId'>>();
  for (const row of rows) {
    results.set(`${row.project_id} ${row.email}`, { contact: row, isNew: row.inserted });
    await emitSubscriptionChange(ctx, ex, row.old_subscribed, row, { source: options.source });
  }
  return writes.map((w) => results.get(contactKey(w))!);
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

/** The fields a contact change names, `data.<key>` for its data: never their values (personal data). */
function contactFields(change: { email?: string; subscribed?: boolean; snoozedUntil?: Date | null; data?: unknown }) {
  const fields = (['email', 'subscribed', 'snoozedUntil'] as const).filter((f) => change[f] !== undefined);
  const data = change.data && typeof change.data === 'object' ? Object.keys(change.data).map((k) => `data.${k}`) : [];
  return { fields: [...fields, ...data] };
}

/** POST /contacts: creates the contact, or updates the one with this address. */
export async function createContact(
  ctx: AppContext,
  projectId: string,
  body: CreateContactBody,
): Promise<{ contact: Contact; isNew: boolean }> {
  const { contact, isNew } = await ctx.db.transaction(async (tx) => {
    const upserted = await upsertContact(
      ctx,
      tx,
      { email: body.email, subscribed: body.subscribed, patch: parseDataPatch(body.data) },
      { projectId, subscribedByDefault: true, source: 'api' },
    );
    await audit.record(tx, {
      projectId,
      action: upserted.isNew ? 'contact.created' : 'contact.updated',
      target: { type: 'contact', id: upserted.contact.id },
      changes: contactFields(body),
    });
    return upserted;
  });
  return { contact: toContact(contact), isNew };
}

export interface ContactUpdate {
  email?: string;
  subscribed?: boolean;
  snoozedUntil?: Date | null;
  patch: DataPatch;
  /** Stored on the subscription event; `api` unless another path made the change. */
  source?: string;
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
  try {
    return await ctx.db.transaction(async (tx) => {
      const row = await changeContact(ctx, tx, projectId, id, change, now);
      if (!row) throw notFound('Contact');
      await audit.record(tx, {
        projectId,
        action: 'contact.updated',
        target: { type: 'contact', id },
        changes: contactFields({
          ...change,
          data: { ...change.patch.set, ...Object.fromEntries(change.patch.unset.map((k) => [k, null])) },
        }),
      });
      return toContact(row);
    });
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
 * contact is not the project's.
 */
export async function changeContact(
  ctx: AppContext,
  tx: Tx,
  projectId: string,
  id: string,
  change: ContactUpdate,
  now: Date,
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
  const [row] = await repo.updateContacts(tx, projectId, [{ ...change, id, subscribed }], now);
  if (!row) return null;
  await emitSubscriptionChange(ctx, tx, row.old_subscribed, row, {
    source: change.source ?? 'api',
    ...(row.snoozed_until ? { snoozedUntil: new Date(row.snoozed_until).toISOString() } : {}),
  });
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
) {
  const rows = await repo.updateContacts(
    tx,
    projectId,
    ids.map((id) => ({ id, subscribed, patch: emptyPatch() })),
    ctx.clock.now(),
  );
  for (const row of rows) await emitSubscriptionChange(ctx, tx, row.old_subscribed, row, { source });
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
  return toContact(row);
}

export async function deleteContact(ctx: AppContext, projectId: string, id: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const deleted = await repo.deleteContacts(tx, projectId, [id]);
    if (deleted.length === 0) throw notFound('Contact');
    await audit.record(tx, { projectId, action: 'contact.deleted', target: { type: 'contact', id } });
  });
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
  return { ...cursorPage(rows, q.limit, keyOf, toContact), total };
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
