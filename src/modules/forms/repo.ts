import { type SQL, sql } from 'drizzle-orm';
import type { FormField, LocalizedText } from '../../domain/signup-form.js';
import { type Executor, run } from '../../platform/db/client.js';

/** Every query on `forms` and `form_signups` lives here. */

export interface FormRow {
  id: string;
  project_id: string;
  name: string;
  fields: FormField[];
  topics: string[];
  double_opt_in: boolean;
  sender_email: string | null;
  sender_name: string | null;
  confirmation_ttl_days: number;
  title: LocalizedText;
  consent_text: LocalizedText;
  success_message: LocalizedText;
  redirect_url: string | null;
  allowed_origins: string[];
  confirmation_template_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface FormValues {
  name: string;
  fields: FormField[];
  doubleOptIn: boolean;
  senderEmail: string | null;
  senderName: string | null;
  confirmationTtlDays: number;
  title: LocalizedText;
  consentText: LocalizedText;
  successMessage: LocalizedText;
  redirectUrl: string | null;
  allowedOrigins: string[];
  topics: string[];
  confirmationTemplateId: string | null;
}

const json = (value: unknown) => sql`${JSON.stringify(value)}::jsonb`;

export async function insertForm(ex: Executor, projectId: string, v: FormValues, now: Date): Promise<FormRow> {
  const r = await run<FormRow>(ex, insertFormStatement(projectId, v, now));
  return r.rows[0]!;
}

/**
 * A form's columns by name: the statements that write an audit entry with them are prepared, and a
 * prepared statement whose columns change (a column added while the service runs) would fail.
 */
const FORM_COLUMNS = sql`id, project_id, name, fields, topics, double_opt_in, sender_email, sender_name,
  confirmation_ttl_days, title, consent_text, success_message, redirect_url, allowed_origins, confirmation_template_id,
  created_at, updated_at`;

/** The insert of `insertForm`, for a caller that writes its audit entry with it. */
export function insertFormStatement(projectId: string, v: FormValues, now: Date): SQL {
  return sql`
    insert into forms (project_id, name, fields, double_opt_in, sender_email, sender_name, confirmation_ttl_days,
      title, consent_text, success_message, redirect_url, allowed_origins, topics, confirmation_template_id,
      created_at, updated_at)
    values (${projectId}, ${v.name}, ${json(v.fields)}, ${v.doubleOptIn}, ${v.senderEmail}, ${v.senderName},
      ${v.confirmationTtlDays}, ${json(v.title)}, ${json(v.consentText)}, ${json(v.successMessage)}, ${v.redirectUrl},
      ${json(v.allowedOrigins)}, ${json(v.topics)}, ${v.confirmationTemplateId}, ${now}, ${now})
    returning ${FORM_COLUMNS}`;
}

/** A form by id alone: the public endpoints know no project, the form id is public. */
export async function findForm(ex: Executor, id: string, projectId?: string): Promise<FormRow | null> {
  const r = await run<FormRow>(
    ex,
    projectId
      ? sql`select * from forms where id = ${id} and project_id = ${projectId}`
      : sql`select * from forms where id = ${id}`,
  );
  return r.rows[0] ?? null;
}

/** Newest first, by keyset. */
export async function listForms(
  ex: Executor,
  projectId: string,
  after: [string, string] | undefined,
  limit: number,
): Promise<FormRow[]> {
  const r = await run<FormRow>(
    ex,
    sql`select * from forms where project_id = ${projectId}
      ${after ? sql`and (created_at, id) < (${after[0]}::timestamptz, ${after[1]}::uuid)` : sql``}
      order by created_at desc, id desc limit ${limit}`,
  );
  return r.rows;
}

export async function countForms(ex: Executor, projectId: string): Promise<number> {
  const r = await run<{ n: number }>(ex, sql`select count(*)::int as n from forms where project_id = ${projectId}`);
  return r.rows[0]!.n;
}

export async function updateForm(
  ex: Executor,
  projectId: string,
  id: string,
  v: FormValues,
  now: Date,
): Promise<FormRow | null> {
  const r = await run<FormRow>(ex, updateFormStatement(projectId, id, v, now));
  return r.rows[0] ?? null;
}

/** The update of `updateForm`, for a caller that writes its audit entry with it. */
export function updateFormStatement(projectId: string, id: string, v: FormValues, now: Date): SQL {
  return sql`
    update forms set name = ${v.name}, fields = ${json(v.fields)}, double_opt_in = ${v.doubleOptIn},
      sender_email = ${v.senderEmail}, sender_name = ${v.senderName}, confirmation_ttl_days = ${v.confirmationTtlDays},
      title = ${json(v.title)}, consent_text = ${json(v.consentText)}, success_message = ${json(v.successMessage)},
      redirect_url = ${v.redirectUrl}, allowed_origins = ${json(v.allowedOrigins)}, topics = ${json(v.topics)},
      confirmation_template_id = ${v.confirmationTemplateId}, updated_at = ${now}
    where id = ${id} and project_id = ${projectId}
    returning ${FORM_COLUMNS}`;
}

/** Deletes the form and the signups still waiting on it (their links stop working). */
export async function deleteForm(ex: Executor, projectId: string, id: string): Promise<boolean> {
  const r = await run(
    ex,
    sql`with gone as (delete from forms where id = ${id} and project_id = ${projectId} returning id)
      , signups as (delete from form_signups where form_id in (select id from gone))
      select count(*)::int as n from gone`,
  );
  return (r.rows[0] as { n: number }).n > 0;
}

export interface SignupRow {
  contact_id: string;
  project_id: string;
  form_id: string;
  token_hash: string;
  expires_at: Date;
  data: Record<string, string | number | boolean>;
  consent_text: string | null;
  locale: string;
  contact_created: boolean;
  confirmation_sent_at: Date | null;
  confirmed_at: Date | null;
  created_at: Date;
  /** Topic id → chosen, for the topics the form offered. */
  topics: Record<string, boolean>;
}

export interface NewSignup {
  contactId: string;
  projectId: string;
  formId: string;
  tokenHash: string;
  expiresAt: Date;
  data: Record<string, string | number | boolean>;
  consentText: string | null;
  locale: string;
  contactCreated: boolean;
  topics: Record<string, boolean>;
}

/**
 * Records signups with new tokens, or renews those of these contacts, except where a confirmation
 * went to the contact after `notBefore`: then the earlier email and its link stay as they are.
 * Answers the contacts the caller is to send the confirmation to now. One statement, so concurrent
 * submissions send one email; at most one signup per contact.
 */
export async function renewSignups(
  ex: Executor,
  signups: NewSignup[],
  now: Date,
  notBefore: Date,
): Promise<Set<string>> {
  if (signups.length === 0) return new Set();
  const r = await run<{ contact_id: string }>(
    ex,
    sql`
    insert into form_signups (contact_id, project_id, form_id, token_hash, expires_at, data, consent_text, locale,
      contact_created, confirmation_sent_at, created_at, topics)
    select s."contactId", s."projectId", s."formId", s."tokenHash", s."expiresAt", s.data, s."consentText", s.locale,
      s."contactCreated", ${now}, ${now}, s.topics
    from jsonb_to_recordset(${json(signups)}) as s("contactId" uuid, "projectId" uuid, "formId" uuid,
      "tokenHash" text, "expiresAt" timestamptz, data jsonb, "consentText" text, locale text, "contactCreated" boolean,
      topics jsonb)
    on conflict (contact_id) do update set form_id = excluded.form_id, token_hash = excluded.token_hash,
      expires_at = excluded.expires_at, data = excluded.data, consent_text = excluded.consent_text, topics = excluded.topics,
      locale = excluded.locale, contact_created = form_signups.contact_created and form_signups.confirmed_at is null,
      confirmation_sent_at = excluded.confirmation_sent_at, confirmed_at = null, created_at = excluded.created_at
    where form_signups.confirmation_sent_at <= ${notBefore}
    returning contact_id`,
  );
  return new Set(r.rows.map((row) => row.contact_id));
}

export async function findSignup(ex: Executor, contactId: string): Promise<SignupRow | null> {
  const r = await run<SignupRow>(ex, sql`select * from form_signups where contact_id = ${contactId}`);
  return r.rows[0] ?? null;
}

export async function findSignupByToken(ex: Executor, tokenHash: string): Promise<SignupRow | null> {
  const r = await run<SignupRow>(ex, sql`select * from form_signups where token_hash = ${tokenHash}`);
  return r.rows[0] ?? null;
}

/** Marks the signup of this token confirmed; null when it was already (another request was first). */
export async function confirmSignup(ex: Executor, tokenHash: string, now: Date): Promise<SignupRow | null> {
  const r = await run<SignupRow>(
    ex,
    sql`update form_signups set confirmed_at = ${now} where token_hash = ${tokenHash} and confirmed_at is null
      returning *`,
  );
  return r.rows[0] ?? null;
}

/**
 * Removes the signups made before `before`, confirmed or not (a confirmed one only answers a second
 * click on its link), and returns them for the caller to delete the contacts that exist only
 * because of a signup never confirmed.
 */
export async function purgeSignups(ex: Executor, before: Date, limit: number) {
  const r = await run<{ contact_id: string; project_id: string; orphan: boolean }>(
    ex,
    sql`delete from form_signups where contact_id in (
        select contact_id from form_signups where created_at < ${before} limit ${limit} for update skip locked)
      returning contact_id, project_id, contact_created and confirmed_at is null as orphan`,
  );
  return r.rows;
}

/** The signups of these contacts still waiting on their link: one primary-key probe per contact. */
export async function pendingSignups(ex: Executor, projectId: string, contactIds: string[]) {
  if (contactIds.length === 0) return [];
  const r = await run<{
    contact_id: string;
    form_id: string;
    form_name: string | null;
    confirmation_sent_at: Date | null;
    expires_at: Date;
  }>(
    ex,
    sql`select s.contact_id, s.form_id, f.name as form_name, s.confirmation_sent_at, s.expires_at
      from form_signups s left join forms f on f.id = s.form_id
      where s.contact_id = any(${`{${contactIds.join(',')}}`}::uuid[]) and s.project_id = ${projectId}
        and s.confirmed_at is null`,
  );
  return r.rows;
}
