import { createHash, randomBytes } from 'node:crypto';
import { parseDataPatch } from '../../domain/contact-data.js';
import { formStringsFor } from '../../domain/form-i18n.js';
import { addressRefusal, textIn } from '../../domain/signup-form.js';
import { baseLocale, type Locale, stringsFor } from '../../domain/subscriber-i18n.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor, Tx } from '../../platform/db/client.js';
import { AppError } from '../../platform/http/errors.js';
import { changeContact, deleteContact, findContact, lookupEmails, upsertContact } from '../contacts/service.js';
import { sendToAddress } from '../emails/service.js';
import { recordEvent } from '../events/record.js';
import { verifyEmail } from '../verify/service.js';
import { confirmationEmail } from './confirmation-email.js';
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

/** Refuses, in the visitor's words, an address the /v1/verify checks find disposable, mistyped or mail-less. */
async function checkAddress(ctx: AppContext, email: string, locale: Locale) {
  const refusal = addressRefusal(await verifyEmail(ctx, email), formStringsFor(locale));
  if (!refusal) return;
  throw new AppError(422, 'ADDRESS_REFUSED', refusal.message, {
    errors: [{ field: 'email', message: refusal.message, code: 'invalid_string', received: email }],
    ...(refusal.suggestion ? { suggestion: refusal.suggestion, details: { suggestedEmail: refusal.suggestion } } : {}),
  });
}

export async function submit(
  ctx: AppContext,
  form: repo.FormRow,
  input: { email: string; data: Record<string, string | number | boolean> },
  locale: Locale,
): Promise<SubmissionStatus> {
  await checkAddress(ctx, input.email, locale);
  const projectId = form.project_id;
  if (!form.double_opt_in) {
    await ctx.db.transaction((tx) =>
      upsertContact(
        ctx,
        tx,
        { email: input.email, subscribed: true, patch: parseDataPatch({ locale, ...input.data }) },
        { projectId, subscribedByDefault: true, source: 'form' },
      ),
    );
    return 'subscribed';
  }
  try {
    await ctx.db.transaction(async (tx) => {
      const [known] = await lookupEmails(tx, projectId, [input.email]);
      const existing = known ? await findContact(tx, projectId, known.id) : null;
      // Already subscribed: nothing to confirm, and the answer must not tell who is on the list.
      if (existing?.subscribed) return;
      const contact = existing
        ? { id: existing.id, isNew: false }
        : await upsertContact(
            ctx,
            tx,
            { email: input.email, subscribed: false, patch: parseDataPatch({ locale }) },
            { projectId, subscribedByDefault: false, source: 'form' },
          ).then((r) => ({ id: r.contact.id, isNew: r.isNew }));
      await sendIfDue(ctx, tx, form, {
        contactId: contact.id,
        email: input.email,
        data: input.data,
        locale,
        contactCreated: contact.isNew,
        consentText: textIn(form.consent_text, locale) ?? null,
      });
    });
  } catch (err) {
    // The form's sender is no longer one the project may use: the operator's problem, said in the
    // log; the visitor hears that the form cannot take signups just now. Nothing was stored.
    if (!(err instanceof AppError && err.statusCode === 403)) throw err;
    ctx.log.warn({ formId: form.id, err: { message: err.message } }, 'signup form cannot send its confirmation');
    throw new AppError(503, 'FORM_UNAVAILABLE', stringsFor(locale).errorText, { retryAfterSeconds: 300 });
  }
  return 'pending';
}

interface PendingSignup {
  contactId: string;
  email: string;
  data: Record<string, string | number | boolean>;
  locale: Locale;
  contactCreated: boolean;
  consentText: string | null;
}

/** Renews the signup with a new link and sends it, unless a confirmation went to it within the hour. */
async function sendIfDue(ctx: AppContext, tx: Tx, form: repo.FormRow, signup: PendingSignup): Promise<void> {
  const now = ctx.clock.now();
  const token = randomBytes(32).toString('base64url');
  const due = await repo.renewSignup(
    tx,
    {
      ...signup,
      projectId: form.project_id,
      formId: form.id,
      tokenHash: hashToken(token),
      expiresAt: new Date(now.getTime() + form.confirmation_ttl_days * 86_400_000),
    },
    now,
    new Date(now.getTime() - HOUR_MS),
  );
  if (!due || !form.sender_email) return;
  const message = confirmationEmail(signup.locale, {
    email: signup.email,
    url: confirmUrl(ctx, token),
    days: form.confirmation_ttl_days,
  });
  await sendToAddress(
    ctx,
    form.project_id,
    { from: form.sender_email, fromName: form.sender_name, to: signup.email, ...message },
    tx,
  );
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
      { subscribed: true, patch: parseDataPatch(signup.data), source: 'form' },
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
    await sendIfDue(ctx, tx, form, {
      contactId: found.signup.contact_id,
      email: found.email,
      data: found.signup.data,
      locale: found.locale,
      contactCreated: found.signup.contact_created,
      consentText: found.signup.consent_text,
    });
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
