import { emptyPatch } from '../../domain/contact-data.js';
import type { SubscriberRef } from '../../domain/signed-links.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/http/errors.js';
import { countUnsubscribe } from '../campaigns/service.js';
import type { Contact } from '../contacts/schemas.js';
import { getContact, setSubscription, updateContactById } from '../contacts/service.js';
import { allTopics, findTopic, setTopicSubscriptions } from '../topics/service.js';
import type { PageTopic, SNOOZE_DAYS } from './pages.js';

export type SnoozeDays = (typeof SNOOZE_DAYS)[number];

/**
 * What recipients do from the links in their email: unsubscribe, resubscribe, snooze. Every change
 * goes through the contacts service, so it emits contact.subscribed / contact.unsubscribed like any
 * other change, once per actual flip: repeating an action changes nothing.
 */

/** The links of an email: the unsubscribe page, its one-click POST, the resubscribe page. */
export type LinkSource = 'unsubscribe_page' | 'one_click' | 'subscribe_page';

/** Where a subscription change came from, stored as `source` on its event. */
export type ChangeSource = LinkSource | 'manage_page';

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
    const rows = await setSubscription(ctx, tx, ref.projectId, [ref.contactId], subscribed, source, {
      sourceId: ref.emailId ?? null,
    });
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
      consent: { sourceId: ref.emailId ?? null },
    });
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

/** The project's public topics as the preference center shows them for this contact. */
export async function publicTopicsOf(ctx: AppContext, ref: SubscriberRef, contact: Contact): Promise<PageTopic[]> {
  const topics = await allTopics(ctx.db, ref.projectId);
  return topics
    .filter((t) => t.public)
    .map((t) => ({ id: t.id, name: t.name, description: t.description, on: contact.topics?.[t.id] ?? t.default_on }));
}

/** The topic a link is about (public or not: the email was about it), or null when it was deleted since. */
export async function topicOfLink(ctx: AppContext, ref: SubscriberRef, contact: Contact): Promise<PageTopic | null> {
  if (!ref.topicId) return null;
  const t = await findTopic(ctx.db, ref.projectId, ref.topicId);
  return t && { id: t.id, name: t.name, description: t.description, on: contact.topics?.[t.id] ?? t.default_on };
}

/**
 * Leaves or rejoins one topic (the links of an email about it); the rest of the subscription stays
 * as it is. Returns the contact as it is now, or null when it no longer exists.
 */
export async function setTopic(
  ctx: AppContext,
  ref: SubscriberRef,
  topicId: string,
  subscribed: boolean,
  source: LinkSource,
): Promise<Contact | null> {
  await ctx.db.transaction(async (tx) => {
    // Rejoining a topic while unsubscribed from everything would bring the reader nothing: the
    // subscription comes back with it (no change, and nothing recorded, when it is on).
    if (subscribed) {
      await setSubscription(ctx, tx, ref.projectId, [ref.contactId], true, source, { sourceId: ref.emailId ?? null });
    }
    const flips = await setTopicSubscriptions(
      ctx,
      tx,
      ref.projectId,
      [{ contactId: ref.contactId, topicId, subscribed }],
      source,
      { sourceId: ref.emailId ?? null },
    );
    // Leaving the topic of a campaign's email counts as that campaign's unsubscribe.
    if (!subscribed && ref.emailId && flips.length > 0) await countUnsubscribe(tx, ref.emailId);
  });
  return findContact(ctx, ref);
}

/**
 * One submit of the preference center: the public topics' switches (those that differ from now),
 * and a break. "Unsubscribe from everything" is `setSubscribed(false)` instead.
 */
export async function savePreferences(
  ctx: AppContext,
  ref: SubscriberRef,
  topics: Record<string, boolean>,
  days: SnoozeDays | null,
): Promise<Contact | null> {
  try {
    return await updateContactById(ctx, ref.projectId, ref.contactId, {
      topics: Object.keys(topics).length > 0 ? topics : undefined,
      ...(days ? { snoozedUntil: new Date(ctx.clock.now().getTime() + days * 86_400_000) } : {}),
      patch: emptyPatch(),
      source: 'manage_page',
      consent: { sourceId: ref.emailId ?? null },
    });
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}
