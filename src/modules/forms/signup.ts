import { createHash, randomBytes } from 'node:crypto';
import { parseDataPatch } from '../../domain/contact-data.js';
import { baseLocale, type Locale } from '../../domain/subscriber-i18n.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import { AppError } from '../../platform/http/errors.js';
import { type ConsentOrigin, recordConsent } from '../consent/service.js';
import { changeContact, deleteContact, findContact } from '../contacts/service.js';
import { composeToAddress, type NewEmail, storeToAddresses } from '../emails/service.js';
import { recordEvent } from '../events/record.js';
import { cachedTemplate } from '../templates/service.js';
import { builtInConfirmationEmail } from './confirmation-email.js';
import * as repo from './repo.js';

/**
 * What a submission does once it has passed the bot checks (docs/decisions.md, "Double opt-in"):
 * without double opt-in the contact is subscribed at once; with it, the contact is pending (not
 * subscribed, so no marketing reaches it) until the link of the confirmation email is used. A
 * confirmation goes to an address at most once an hour, however often it is submitted.
 */

const HOUR_MS = 3_600_000;
/** Signups never confirmed are removed this long after they were made (with the contact they created). */
export const PENDING_RETENTION_DAYS = 30;

export type SubmissionStatus = 'pending' | 'subscribed';

const hashToken = (token: string) => createHash('sha256').update(token).digest('base64url');
export const confirmUrl = (ctx: AppContext, token: string) => `${ctx.config.publicUrl}/f/confirm/${token}`;

export interface PendingSignup {
  contactId: string;
  email: string;
  data: Record<string, string | number | boolean>;
  locale: Locale;
  contactCreated: boolean;
  consentText: string | null;
  /** The offered topics, chosen or not: applied when the link is used. */
  topics: Record<string, boolean>;
}

/** A new link and the confirmation email that carries it, rendered (none when the form has no sender). */
export interface Confirmation {
  token: string;
  email: NewEmail | null;
}

export async function prepareConfirmation(
  ctx: AppContext,
  form: repo.FormRow,
  signup: Pick<PendingSignup, 'email' | 'data' | 'locale'>,
): Promise<Confirmation> {
  const token = randomBytes(32).toString('base64url');
  if (!form.sender_email) return { token, email: null };
  const message = await confirmationContent(ctx, form, signup.locale);
  const email = await composeToAddress(
    ctx,
    form.project_id,
    { from: form.sender_email, fromName: form.sender_name, to: signup.email, ...message },
    {
      data: { ...signup.data, locale: signup.locale },
      transient: { confirmationUrl: confirmUrl(ctx, token), confirmationDays: form.confirmation_ttl_days },
    },
  );
  return { token, email };
}

/** A signup to renew with a new link, the link's email, and who asked for it. */
export interface ConfirmationRequest {
  form: repo.FormRow;
  signup: PendingSignup;
  confirmation: Confirmation;
  /** The visitor, when the request is written apart from theirs (consent/service.ts). */
  origin?: ConsentOrigin;
}

/**
 * Renews the signups with their new links and sends them, except to contacts a confirmation went to
 * within the hour: a statement each for the signups, their consent records and their emails, however
 * many. One request per contact.
 */
export async function sendConfirmations(ctx: AppContext, tx: Executor, requests: ConfirmationRequest[]): Promise<void> {
  const now = ctx.clock.now();
  const due = await repo.renewSignups(
    tx,
    requests.map(({ form, signup, confirmation }) => ({
      ...signup,
      projectId: form.project_id,
      formId: form.id,
      tokenHash: hashToken(confirmation.token),
      expiresAt: new Date(now.getTime() + form.confirmation_ttl_days * 86_400_000),
    })),
    now,
    new Date(now.getTime() - HOUR_MS),
  );
  const sent = requests.filter((r) => due.has(r.signup.contactId));
  await recordConsent(
    tx,
    sent.map(({ form, signup, origin }) => ({
      projectId: form.project_id,
      contactId: signup.contactId,
      change: 'pending' as const,
      source: 'form',
      sourceId: form.id,
      consentText: signup.consentText,
      origin,
      at: now,
    })),
  );
  // Linked to the contact, so that its export and erase find it.
  await storeToAddresses(
    ctx,
    tx,
    sent.flatMap(({ signup, confirmation }) =>
      confirmation.email ? [{ ...confirmation.email, contactId: signup.contactId }] : [],
    ),
  );
}

/**
 * The subject and body (Liquid sources) of a form's confirmation email: the template it names, or
 * the built-in one in the visitor's language when it names none or its template is gone.
 */
async function confirmationContent(ctx: AppContext, form: repo.FormRow, locale: Locale) {
  if (form.confirmation_template_id) {
    const template = await cachedTemplate(ctx, form.project_id, form.confirmation_template_id);
    if (template) return { subject: template.subject, html: template.body };
    ctx.log.warn({ formId: form.id }, "the template of a form's confirmation email is gone; the built-in one is sent");
  }
  return builtInConfirmationEmail(locale);
}

export type TokenState =
  | { state: 'valid' | 'confirmed'; signup: repo.SignupRow; email: string; locale: Locale }
  | { state: 'expired'; signup: repo.SignupRow; email: string; locale: Locale; days: number }
  | { state: 'invalid' };

async function signupOf(ctx: AppContext, ex: Executor, token: string): Promise<TokenState> {
  const signup = await repo.findSignupByToken(ex, hashToken(token));
  const contact = signup && (await findContact(ex, signup.project_id, signup.contact_id));
  if (!signup || !contact) return { state: 'invalid' };
  const locale = baseLocale(signup.locale) ?? 'en';
  if (signup.confirmed_at) return { state: 'confirmed', signup, email: contact.email, locale };
  if (new Date(signup.expires_at).getTime() <= ctx.clock.now().getTime()) {
    const form = await repo.findForm(ex, signup.form_id);
    return { state: 'expired', signup, email: contact.email, locale, days: form?.confirmation_ttl_days ?? 7 };
  }
  return { state: 'valid', signup, email: contact.email, locale };
}

/** What the link of a confirmation email points at, without changing anything (a GET). */
export const tokenState = (ctx: AppContext, token: string) => signupOf(ctx, ctx.db, token);

/**
 * Confirms the signup of a link: the contact is subscribed, the data the form collected is applied,
 * and `contact.confirmed` is recorded (workflows start on it, webhooks carry it). A second click
 * finds it confirmed and changes nothing.
 */
export async function confirm(ctx: AppContext, token: string): Promise<TokenState> {
  return ctx.db.transaction(async (tx) => {
    const found = await signupOf(ctx, tx, token);
    const now = ctx.clock.now();
    if (found.state !== 'valid') return found;
    if (!(await repo.confirmSignup(tx, found.signup.token_hash, now))) return { ...found, state: 'confirmed' as const };
    const { signup } = found;
    await changeContact(
      ctx,
      tx,
      signup.project_id,
      signup.contact_id,
      {
        subscribed: true,
        patch: parseDataPatch(signup.data),
        topics: signup.topics ?? {},
        source: 'form',
        consent: { change: 'confirmed', sourceId: signup.form_id, consentText: signup.consent_text },
      },
      now,
    );
    await recordEvent(tx, {
      projectId: signup.project_id,
      contactId: signup.contact_id,
      name: 'contact.confirmed',
      data: { formId: signup.form_id, ...(signup.consent_text ? { consentText: signup.consent_text } : {}) },
      at: now,
    });
    return found;
  });
}

/** A new link for a pending contact whose link expired (at most one email an hour still). */
export async function resend(ctx: AppContext, token: string): Promise<TokenState> {
  return ctx.db.transaction(async (tx) => {
    const found = await signupOf(ctx, tx, token);
    if (found.state === 'invalid' || found.state === 'confirmed') return found;
    const form = await repo.findForm(tx, found.signup.form_id);
    if (!form?.double_opt_in) return { state: 'invalid' };
    const signup = {
      contactId: found.signup.contact_id,
      email: found.email,
      data: found.signup.data,
      locale: found.locale,
      contactCreated: found.signup.contact_created,
      consentText: found.signup.consent_text,
      topics: found.signup.topics ?? {},
    };
    await sendConfirmations(ctx, tx, [{ form, signup, confirmation: await prepareConfirmation(ctx, form, signup) }]);
    return found;
  });
}

/**
 * Removes signups PENDING_RETENTION_DAYS after they were made, and the contacts that exist only
 * because of one never confirmed and are still not subscribed (nothing else subscribed them since).
 */
export async function purgeUnconfirmedSignups(ctx: AppContext): Promise<number> {
  const before = new Date(ctx.clock.now().getTime() - PENDING_RETENTION_DAYS * 86_400_000);
  let removed = 0;
  for (;;) {
    const batch = await repo.purgeSignups(ctx.db, before, 500);
    for (const s of batch.filter((row) => row.orphan)) {
      const contact = await findContact(ctx.db, s.project_id, s.contact_id);
      if (contact && !contact.subscribed) {
        // Deleted meanwhile by someone else: nothing left to do.
        await deleteContact(ctx, s.project_id, s.contact_id).catch((err) => {
          if (!(err instanceof AppError && err.statusCode === 404)) throw err;
        });
      }
    }
    removed += batch.length;
    if (batch.length < 500) return removed;
  }
}
