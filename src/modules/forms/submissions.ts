import { parseDataPatch } from '../../domain/contact-data.js';
import { formStringsFor } from '../../domain/form-i18n.js';
import { addressRefusal, textIn } from '../../domain/signup-form.js';
import { type Locale, stringsFor } from '../../domain/subscriber-i18n.js';
import type { AppContext } from '../../platform/context.js';
import { type Db, queryDeadlineMs } from '../../platform/db/client.js';
import { GroupCommit, type Outcome, transactionalWrite } from '../../platform/group-commit.js';
import { AppError } from '../../platform/http/errors.js';
import { type ConsentDetail, consentOrigin } from '../consent/service.js';
import { lookupEmails, writeContacts } from '../contacts/service.js';
import { changesOf, setTopicSubscriptions } from '../topics/service.js';
import { DomainLookupCache, verifyEmail } from '../verify/service.js';
import type * as repo from './repo.js';
import {
  type Confirmation,
  type ConfirmationRequest,
  prepareConfirmation,
  type SubmissionStatus,
  sendConfirmations,
} from './signup.js';

/**
 * Form submissions by group commit, as /v1/track (platform/group-commit.ts): the submissions that
 * arrive together are written in one transaction of a few statements, whatever their number, each
 * answered once its own rows are committed. What a submission does is said in signup.ts.
 */

export interface SubmissionInput {
  email: string;
  data: Record<string, string | number | boolean>;
  /** The form's offered topics, each chosen or not. */
  topics: Record<string, boolean>;
}

/** A submission that passed every check, with its confirmation email rendered (double opt-in). */
interface Accepted extends SubmissionInput {
  form: repo.FormRow;
  locale: Locale;
  /** The form, the consent text the visitor saw, and the visitor (the batch is written apart from their request). */
  consent: ConsentDetail & { sourceId: string; consentText: string | null };
  confirmation: Confirmation | null;
}

const MAX_BATCH = 100;
const MAX_IN_FLIGHT = 2;

export class Submissions {
  private readonly batches: GroupCommit<Accepted, SubmissionStatus>;
  /**
   * The DNS answers of the address checks, per domain, for 10 minutes: without them every submission
   * waited on four lookups (NS, MX, A and AAAA), although most visitors share a few mail providers.
   */
  private readonly domainLookups = new DomainLookupCache();

  constructor(private readonly ctx: AppContext) {
    this.batches = new GroupCommit({
      write: transactionalWrite(ctx.database, (tx, items) => writeSubmissions(ctx, tx, items)),
      deadlineMs: queryDeadlineMs(ctx.config.databaseTimeouts),
      maxBatch: MAX_BATCH,
      maxInFlight: MAX_IN_FLIGHT,
    });
  }

  async submit(form: repo.FormRow, input: SubmissionInput, locale: Locale): Promise<SubmissionStatus> {
    await this.checkAddress(input.email, locale);
    const consent = {
      sourceId: form.id,
      consentText: textIn(form.consent_text, locale) ?? null,
      origin: consentOrigin(),
    };
    try {
      // Rendered before the batch, whose transaction then holds its connection for its writes alone.
      const confirmation = form.double_opt_in
        ? await prepareConfirmation(this.ctx, form, { email: input.email, data: input.data, locale })
        : null;
      return await this.batches.submit({ ...input, form, locale, consent, confirmation });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.code === 'ADDRESS_ERASED') {
        throw new AppError(422, 'ADDRESS_ERASED', formStringsFor(locale).refusedErased, {
          errors: [{ field: 'email', message: formStringsFor(locale).refusedErased, code: 'custom' }],
        });
      }
      // The form's sender is no longer one the project may use: the operator's problem, said in the
      // log; the visitor hears that the form cannot take signups just now. Nothing was stored.
      if (err.statusCode !== 403) throw err;
      this.ctx.log.warn({ formId: form.id, err: { message: err.message } }, 'signup form cannot send its confirmation');
      throw new AppError(503, 'FORM_UNAVAILABLE', stringsFor(locale).errorText, { retryAfterSeconds: 300 });
    }
  }

  /** Refuses, in the visitor's words, an address the /v1/verify checks find disposable, mistyped or mail-less. */
  private async checkAddress(email: string, locale: Locale) {
    const refusal = addressRefusal(await verifyEmail(this.ctx, email, this.domainLookups), formStringsFor(locale));
    if (!refusal) return;
    throw new AppError(422, 'ADDRESS_REFUSED', refusal.message, {
      errors: [{ field: 'email', message: refusal.message, code: 'invalid_string', received: email }],
      ...(refusal.suggestion
        ? { suggestion: refusal.suggestion, details: { suggestedEmail: refusal.suggestion } }
        : {}),
    });
  }
}

async function writeSubmissions(ctx: AppContext, tx: Db, items: Accepted[]): Promise<Outcome<SubmissionStatus>[]> {
  await subscribeAtOnce(
    ctx,
    tx,
    items.filter((i) => !i.form.double_opt_in),
  );
  const pending = items.filter((i) => i.form.double_opt_in);
  for (const projectId of new Set(pending.map((i) => i.form.project_id))) {
    await signUpPending(
      ctx,
      tx,
      projectId,
      pending.filter((i) => i.form.project_id === projectId),
    );
  }
  return items.map((i) => ({ ok: true, value: i.form.double_opt_in ? 'pending' : 'subscribed' }));
}

/** Without double opt-in: the contacts are subscribed, with the data and topics the visitors gave. */
async function subscribeAtOnce(ctx: AppContext, tx: Db, items: Accepted[]) {
  const contacts = await writeContacts(
    ctx,
    tx,
    items.map((i) => ({
      projectId: i.form.project_id,
      input: { email: i.email, subscribed: true, patch: parseDataPatch({ locale: i.locale, ...i.data }) },
      events: [],
      consent: i.consent,
    })),
    { subscribedByDefault: true, source: 'form' },
  );
  for (const [n, i] of items.entries()) {
    const changes = changesOf(contacts[n]!.contact.id, i.topics);
    if (changes.length > 0) await setTopicSubscriptions(ctx, tx, i.form.project_id, changes, 'form', i.consent);
  }
}

/**
 * With double opt-in, for one project: new addresses become pending contacts (not subscribed), and
 * each address not yet subscribed gets its confirmation, once. An address already subscribed is left
 * as it is, and its answer does not tell that it is on the list.
 */
async function signUpPending(ctx: AppContext, tx: Db, projectId: string, items: Accepted[]) {
  const found = await lookupEmails(
    tx,
    projectId,
    items.map((i) => i.email),
  );
  const known = new Map(found.map((c) => [c.email, c]));
  const fresh = [...new Map(items.filter((i) => !known.has(i.email)).map((i) => [i.email, i])).values()];
  const created = await writeContacts(
    ctx,
    tx,
    fresh.map((i) => ({
      projectId,
      input: { email: i.email, subscribed: false, patch: parseDataPatch({ locale: i.locale }) },
      events: [],
    })),
    { subscribedByDefault: false, source: 'form' },
  );
  const contacts = new Map<string, { id: string; subscribed: boolean; isNew: boolean }>(
    fresh.map((i, n) => [i.email, { ...created[n]!.contact, isNew: created[n]!.isNew }]),
  );
  for (const [email, c] of known) contacts.set(email, { ...c, isNew: false });
  const requests = new Map<string, ConfirmationRequest>();
  for (const i of items) {
    const contact = contacts.get(i.email)!;
    // The first submission of an address in the batch is its one; the others find it sent.
    if (contact.subscribed || requests.has(contact.id) || !i.confirmation) continue;
    requests.set(contact.id, {
      form: i.form,
      signup: {
        contactId: contact.id,
        email: i.email,
        data: i.data,
        locale: i.locale,
        contactCreated: contact.isNew,
        consentText: i.consent.consentText,
        topics: i.topics,
      },
      confirmation: i.confirmation,
      origin: i.consent.origin,
    });
  }
  await sendConfirmations(ctx, tx, [...requests.values()]);
}
