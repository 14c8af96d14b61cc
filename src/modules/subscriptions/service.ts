import { emptyPatch } from '../../domain/contact-data.js';
import type { SubscriberRef } from '../../domain/signed-links.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/http/errors.js';
import { countUnsubscribe } from '../campaigns/service.js';
import type { Contact } from '../contacts/schemas.js';
import { getContact, setSubscription, updateContactById } from '../contacts/service.js';
import type { SNOOZE_DAYS } from './pages.js';

export type SnoozeDays = (typeof SNOOZE_DAYS)[number];

/**
 * What recipients do from the links in their email: unsubscribe, resubscribe, snooze. Every change
 * goes through the contacts service, so it emits contact.subscribed / contact.unsubscribed like any
 * other change, once per actual flip: repeating an action changes nothing.
 */

/** Where a subscription change came from, stored as `source` on its event. */
export type ChangeSource = 'unsubscribe_page' | 'one_click' | 'subscribe_page' | 'manage_page';

const isNotFound = (err: unknown) => err instanceof AppError && err.statusCode === 404;

/** The contact a signed token points at; null when the token is forged or the contact is gone. */
export async function resolveToken(
  ctx: AppContext,
  token: string,
): Promise<{ ref: SubscriberRef; contact: Contact } | null> {
  const ref = ctx.links.readSubscriberToken(token);
  if (!ref) return null;
  const contact = await findContact(ctx, ref);
  return contact ? { ref, contact } : null;
}

async function findContact(ctx: AppContext, ref: SubscriberRef): Promise<Contact | null> {
  try {
    return await getContact(ctx, ref.projectId, ref.contactId);
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

/**
 * Sets the subscription; either way a running snooze ends (an unsubscribe is then for good, a
 * resubscribe immediate). Returns the contact as it is now, or null when it no longer exists.
 */
export async function setSubscribed(
  ctx: AppContext,
  ref: SubscriberRef,
  subscribed: boolean,
  source: ChangeSource,
): Promise<Contact | null> {
  const found = await ctx.db.transaction(async (tx) => {
    const rows = await setSubscription(ctx, tx, ref.projectId, [ref.contactId], subscribed, source);
    // An unsubscribe from a campaign's email counts in that campaign's report.
    if (!subscribed && ref.emailId && rows[0]?.changed) await countUnsubscribe(tx, ref.emailId);
    return rows;
  });
  return found.length === 0 ? null : findContact(ctx, ref);
}

/** Pauses the subscription for `days`; the contacts worker resubscribes it when the time is up. */
export async function snooze(ctx: AppContext, ref: SubscriberRef, days: SnoozeDays): Promise<Contact | null> {
  const until = new Date(ctx.clock.now().getTime() + days * 86_400_000);
  try {
    return await updateContactById(ctx, ref.projectId, ref.contactId, {
      snoozedUntil: until,
      patch: emptyPatch(),
      source: 'manage_page',
    });
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}
