import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/client.js';
import { isUniqueViolation } from '../../platform/db/errors.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { encodeCursor, type CursorPage } from '../../platform/http/pagination.js';
import { enqueue } from '../../platform/queue.js';
import { inferPatchTypes, type DataPatch } from '../../domain/contact-data.js';
import { recordEvent } from '../events/record.js';
import * as repo from './repo.js';
import type { ContactRow, ListQuery } from './repo.js';

export interface Contact {
  id: string;
  email: string;
  subscribed: boolean;
  snoozedUntil: string | null;
  data: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export function toContact(row: ContactRow): Contact {
  return {
    id: row.id,
    email: row.email,
    subscribed: row.subscribed,
    snoozedUntil: row.snoozed_until ? new Date(row.snoozed_until).toISOString() : null,
    data: row.data,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

export const SNOOZE_END_QUEUE = 'contacts.snooze-end';

export interface UpsertInput {
  projectId: string;
  email: string;
  /** Explicit subscription; omitted keeps an existing contact's state. */
  subscribed?: boolean;
  /** The state of a new contact when `subscribed` is omitted: it differs per endpoint. */
  subscribedByDefault: boolean;
  patch: DataPatch;
  /** Free-form context stored on subscription events, e.g. which endpoint changed it. */
  source: string;
}

export interface UpsertResult {
  contact: ContactRow;
  isNew: boolean;
}

/** Emits contact.subscribed / contact.unsubscribed when the state flipped. */
export async function emitSubscriptionChange(ctx: AppContext, tx: Tx, before: boolean, row: ContactRow, data: Record<string, unknown>) {
  if (before === row.subscribed) return;
  await recordEvent(tx, ctx.bus, {
    projectId: row.project_id,
    contactId: row.id,
    name: row.subscribed ? 'contact.subscribed' : 'contact.unsubscribed',
    data,
    at: ctx.clock.now(),
  });
}

/** The one way to create-or-update a contact by email: contacts, track, send, imports and workflows use it. */
export async function upsertContact(ctx: AppContext, tx: Tx, input: UpsertInput): Promise<UpsertResult> {
  const now = ctx.clock.now();
  await repo.recordFieldTypes(tx, input.projectId, inferPatchTypes(input.patch));
  const inserted = await repo.insertContactIfAbsent(tx, {
    projectId: input.projectId,
    email: input.email,
    subscribed: input.subscribed ?? input.subscribedByDefault,
    data: input.patch.set,
    now,
  });
  if (inserted) return { contact: inserted, isNew: true };
  const updated = await repo.updateContact(
    tx,
    { projectId: input.projectId, email: input.email },
    { subscribed: input.subscribed, patch: input.patch, now },
  );
  // The row existed a moment ago and deleting it needs the lock we now hold: it is there.
  if (!updated) throw new Error('contact vanished during upsert');
  await emitSubscriptionChange(ctx, tx, updated.old_subscribed, updated, { source: input.source });
  return { contact: updated, isNew: false };
}

export interface ContactUpdate {
  email?: string;
  subscribed?: boolean;
  snoozedUntil?: Date | null;
  patch: DataPatch;
}

export async function updateContactById(ctx: AppContext, projectId: string, id: string, change: ContactUpdate): Promise<Contact> {
  const now = ctx.clock.now();
  if (change.snoozedUntil && change.snoozedUntil.getTime() <= now.getTime()) {
    throw new AppError(422, 'VALIDATION_ERROR', 'Request validation failed', {
      errors: [{ field: 'snoozedUntil', message: 'Must be in the future', code: 'too_small', received: change.snoozedUntil.toISOString() }],
    });
  }
  // Snoozing pauses the subscription; ending a snooze resumes it unless told otherwise.
  const subscribed =
    change.subscribed ?? (change.snoozedUntil ? false : change.snoozedUntil === null ? true : undefined);
  try {
    return await ctx.db.transaction(async (tx) => {
      await repo.recordFieldTypes(tx, projectId, inferPatchTypes(change.patch));
      const row = await repo.updateContact(tx, { projectId, id }, { ...change, subscribed, now });
      if (!row) throw notFound('Contact');
      await emitSubscriptionChange(ctx, tx, row.old_subscribed, row, {
        source: 'api',
        ...(row.snoozed_until ? { snoozedUntil: new Date(row.snoozed_until).toISOString() } : {}),
      });
      if (change.snoozedUntil) {
        await enqueue(tx, SNOOZE_END_QUEUE, { projectId, contactId: id }, { runAt: change.snoozedUntil });
      }
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

/** Resubscribes a contact whose snooze has passed; a later or cancelled snooze makes this a no-op. */
export async function endSnooze(ctx: AppContext, projectId: string, contactId: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const row = await repo.findContact(tx, projectId, contactId);
    if (!row?.snoozed_until || new Date(row.snoozed_until).getTime() > ctx.clock.now().getTime()) return;
    const updated = await repo.updateContact(
      tx,
      { projectId, id: contactId },
      { subscribed: true, snoozedUntil: null, patch: { set: {}, unset: [], transient: {} }, now: ctx.clock.now() },
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
  const deleted = await repo.deleteContacts(ctx.db, projectId, [id]);
  if (deleted.length === 0) throw notFound('Contact');
}

export async function listContacts(ctx: AppContext, q: ListQuery): Promise<CursorPage<Contact>> {
  const [rows, total] = await Promise.all([
    repo.listContacts(ctx.db, { ...q, limit: q.limit + 1 }),
    q.after ? Promise.resolve(0) : repo.countContacts(ctx.db, q),
  ]);
  const hasMore = rows.length > q.limit;
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  const cursor =
    hasMore && last
      ? encodeCursor([q.sort === 'email' ? last.email : new Date(last.created_at).toISOString(), last.id])
      : null;
  return { data: page.map(toContact), cursor, hasMore, total };
}

export async function lookupContacts(ctx: AppContext, projectId: string, emails: string[]) {
  const found = new Map((await repo.lookupEmails(ctx.db, projectId, emails)).map((r) => [r.email, r.id]));
  return emails.map((email) => ({ email, exists: found.has(email), contactId: found.get(email) ?? null }));
}
