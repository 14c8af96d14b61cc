import { sql } from 'drizzle-orm';
import { iso } from '../../domain/formats.js';
import type { AppContext } from '../../platform/context.js';
import { notFound, validationError } from '../../platform/http/errors.js';
import {
  type CursorPage,
  type CursorValue,
  cursorPage,
  invalidCursorError,
  isKeysetCursor,
} from '../../platform/http/pagination.js';
import * as audit from '../audit/service.js';
import { assertVerifiedSender } from '../domains/service.js';
import { findTemplate } from '../templates/service.js';
import { allTopics, checkTopicIds } from '../topics/service.js';
import { CONFIRMATION_URL_VARIABLE, usesConfirmationUrl } from './confirmation-email.js';
import { embedCode, formLocale } from './embed.js';
import { hostedFormPage } from './pages.js';
import * as repo from './repo.js';
import type {
  CreateFormBody,
  Form,
  FormPreview,
  FormStats,
  PatchFormBody,
  PendingSignups,
  PreviewFormBody,
} from './schemas.js';
import { dailyCounts, formStatsCounter } from './stats.js';

/** Signup forms: what each collects, says and sends (docs/decisions.md, "Signup forms"). */

export type { FormRow } from './repo.js';

/** Forms change rarely and every submission reads its form: kept per process, dropped on a change. */
export const FORMS_CHANNEL = 'forms_changed';

/** A form by id alone (the public endpoints), from the process's cache. */
export function findForm(ctx: AppContext, id: string): Promise<repo.FormRow | null> {
  return ctx.caches.of<repo.FormRow | null>(FORMS_CHANNEL).get(
    id,
    () => repo.findForm(ctx.db, id),
    (row) => row !== null,
  );
}

export const hostedUrl = (ctx: AppContext, id: string) => `${ctx.config.publicUrl}/f/${id}`;

const valuesOf = (row: repo.FormRow): repo.FormValues => ({
  name: row.name,
  fields: row.fields,
  doubleOptIn: row.double_opt_in,
  senderEmail: row.sender_email,
  senderName: row.sender_name,
  confirmationTtlDays: row.confirmation_ttl_days,
  title: row.title,
  consentText: row.consent_text,
  successMessage: row.success_message,
  redirectUrl: row.redirect_url,
  allowedOrigins: row.allowed_origins,
  topics: row.topics,
  confirmationTemplateId: row.confirmation_template_id,
});

export function toForm(ctx: AppContext, row: repo.FormRow): Form {
  return {
    id: row.id,
    projectId: row.project_id,
    ...valuesOf(row),
    url: hostedUrl(ctx, row.id),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** A form that sends confirmations must say from whom, from a sender the project may use. */
async function checkSender(ctx: AppContext, projectId: string, v: repo.FormValues) {
  if (v.doubleOptIn && !v.senderEmail) {
    throw validationError([
      {
        field: 'senderEmail',
        message: 'Required while doubleOptIn is true: the confirmation email is sent from it',
        code: 'invalid_type',
      },
    ]);
  }
  if (v.senderEmail) await assertVerifiedSender(ctx, ctx.db, projectId, v.senderEmail);
  if (v.confirmationTemplateId) await checkConfirmationTemplate(ctx, projectId, v.confirmationTemplateId);
}

/** The template of a confirmation email must be one of the project's, and carry the link that confirms. */
async function checkConfirmationTemplate(ctx: AppContext, projectId: string, id: string) {
  const template = await findTemplate(ctx.db, projectId, id);
  const problem = !template
    ? 'No template of this project has this id'
    : !usesConfirmationUrl(template.body)
      ? `The template's body must use {{ ${CONFIRMATION_URL_VARIABLE} }}: the link that confirms the signup`
      : null;
  if (problem) throw validationError([{ field: 'confirmationTemplateId', message: problem, code: 'custom' }]);
}

/** The topics a form offers, with their names, in the form's order (topics deleted since left out). */
export async function offeredTopics(ctx: AppContext, form: { project_id: string; topics: string[] }) {
  const byId = new Map((await allTopics(ctx.db, form.project_id)).map((t) => [t.id, t]));
  return form.topics.flatMap((id) => {
    const t = byId.get(id);
    return t ? [{ id: t.id, name: t.name, description: t.description }] : [];
  });
}

export async function createForm(ctx: AppContext, projectId: string, body: CreateFormBody): Promise<Form> {
  await checkSender(ctx, projectId, body);
  await checkTopicIds(ctx.db, projectId, body.topics);
  const [row] = await audit.changeAudited<repo.FormRow>(
    ctx.db,
    repo.insertFormStatement(projectId, body, ctx.clock.now()),
    {
      projectId,
      action: 'form.created',
      target: { type: 'form', id: sql`changed.id::text` },
      changes: { name: body.name, doubleOptIn: body.doubleOptIn },
    },
  );
  if (!row) throw new Error('The form was not inserted');
  return toForm(ctx, row);
}

export async function listForms(
  ctx: AppContext,
  projectId: string,
  q: { limit: number; cursor?: CursorValue[] },
): Promise<CursorPage<Form>> {
  if (q.cursor && !isKeysetCursor(q.cursor, 'timestamp')) throw invalidCursorError();
  const [rows, total] = await Promise.all([
    repo.listForms(ctx.db, projectId, q.cursor as [string, string] | undefined, q.limit + 1),
    q.cursor ? 0 : repo.countForms(ctx.db, projectId),
  ]);
  const page = cursorPage(
    rows,
    q.limit,
    (r) => [iso(r.created_at), r.id],
    (r) => toForm(ctx, r),
  );
  return { ...page, total };
}

async function requireForm(ctx: AppContext, projectId: string, id: string) {
  const row = await repo.findForm(ctx.db, id, projectId);
  if (!row) throw notFound('Form');
  return row;
}

export async function getForm(ctx: AppContext, projectId: string, id: string) {
  const row = await requireForm(ctx, projectId, id);
  const form = toForm(ctx, row);
  return { ...form, embedCode: embedCode(ctx.config.publicUrl, form, await offeredTopics(ctx, row)) };
}

export async function updateForm(ctx: AppContext, projectId: string, id: string, body: PatchFormBody): Promise<Form> {
  const current = await requireForm(ctx, projectId, id);
  const values = { ...valuesOf(current), ...body };
  await checkSender(ctx, projectId, values);
  if (body.topics) await checkTopicIds(ctx.db, projectId, body.topics);
  const [row] = await audit.changeAudited<repo.FormRow>(
    ctx.db,
    repo.updateFormStatement(projectId, id, values, ctx.clock.now()),
    { projectId, action: 'form.updated', target: { type: 'form', id }, changes: audit.fieldsOf(body) },
  );
  if (!row) throw notFound('Form');
  await ctx.caches.changed(ctx.db, FORMS_CHANNEL, id);
  return toForm(ctx, row);
}

export async function deleteForm(ctx: AppContext, projectId: string, id: string): Promise<void> {
  const deleted = await audit.audited(
    ctx,
    (tx) => repo.deleteForm(tx, projectId, id),
    (done) => (done ? { projectId, action: 'form.deleted', target: { type: 'form', id } } : null),
  );
  if (!deleted) throw notFound('Form');
  await ctx.caches.changed(ctx.db, FORMS_CHANNEL, id);
}

const DAY_MS = 86_400_000;
const ratio = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : null);

/** Views, submissions and confirmations per UTC day over the last `days` days, today included. */
export async function formStats(
  ctx: AppContext,
  projectId: string,
  id: string,
  q: { days: number },
): Promise<FormStats> {
  const form = await requireForm(ctx, projectId, id);
  // What this process counted and has not written yet: the answer is current for its own counts.
  await formStatsCounter(ctx).flush();
  const now = ctx.clock.now().getTime();
  const to = new Date(now).toISOString().slice(0, 10);
  const from = new Date(now - (q.days - 1) * DAY_MS).toISOString().slice(0, 10);
  const days = await dailyCounts(ctx.db, id, from, to);
  const sum = (k: 'views' | 'submissions' | 'confirmations') => days.reduce((n, d) => n + d[k], 0);
  const totals = { views: sum('views'), submissions: sum('submissions'), confirmations: sum('confirmations') };
  return {
    formId: id,
    from,
    to,
    totals: {
      ...totals,
      submissionRate: ratio(totals.submissions, totals.views),
      confirmationRate: form.double_opt_in ? ratio(totals.confirmations, totals.submissions) : null,
    },
    days,
  };
}

/** The id a preview shows in its code until the form is saved. */
const PREVIEW_ID = '00000000-0000-4000-8000-000000000000';

/**
 * The hosted page and the embed code of a form as the builder has it, rendered by the same code
 * as /f/<id> and GET /forms/:id; nothing is saved or checked beyond the shape. The page comes
 * without its script (a preview frame runs none), so the note that script is needed is hidden.
 */
export function previewForm(
  ctx: AppContext,
  projectId: string,
  { id = PREVIEW_ID, ...body }: PreviewFormBody,
): FormPreview {
  const now = iso(ctx.clock.now());
  const form: Form = {
    id,
    projectId,
    ...body,
    topics: [],
    url: hostedUrl(ctx, id),
    createdAt: now,
    updatedAt: now,
  };
  const page = hostedFormPage(ctx.config.publicUrl, form, formLocale(form)).replace(
    /<script\b[^>]*><\/script>\n?/g,
    '<style>.postbox-form .pb-noscript{display:none}</style>\n',
  );
  return { html: page, embedCode: embedCode(ctx.config.publicUrl, form) };
}

/** Which of these contacts wait on a double opt-in link (the "pending" badge of the dashboard). */
export async function pendingSignups(
  ctx: AppContext,
  projectId: string,
  contactIds: string[],
): Promise<PendingSignups> {
  const rows = await repo.pendingSignups(ctx.db, projectId, contactIds);
  return {
    data: rows.map((r) => ({
      contactId: r.contact_id,
      formId: r.form_id,
      formName: r.form_name,
      confirmationSentAt: r.confirmation_sent_at ? iso(r.confirmation_sent_at) : null,
      expiresAt: iso(r.expires_at),
    })),
  };
}
