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
import { embedCode } from './embed.js';
import * as repo from './repo.js';
import type { CreateFormBody, Form, PatchFormBody } from './schemas.js';

/** Signup forms: what each collects, says and sends (docs/decisions.md, "Signup forms"). */

export { type FormRow, findForm } from './repo.js';

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
});

export function toForm(ctx: AppContext, row: repo.FormRow): Form {
  return {
    id: row.id,
    projectId: row.project_id,
    ...valuesOf(row),
    topics: [],
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
}

export async function createForm(ctx: AppContext, projectId: string, body: CreateFormBody): Promise<Form> {
  await checkSender(ctx, projectId, body);
  const row = await audit.audited(
    ctx,
    (tx) => repo.insertForm(tx, projectId, body, ctx.clock.now()),
    (f) => ({
      projectId,
      action: 'form.created',
      target: { type: 'form', id: f.id },
      changes: { name: f.name, doubleOptIn: f.double_opt_in },
    }),
  );
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
  const form = toForm(ctx, await requireForm(ctx, projectId, id));
  return { ...form, embedCode: embedCode(ctx.config.publicUrl, form) };
}

export async function updateForm(ctx: AppContext, projectId: string, id: string, body: PatchFormBody): Promise<Form> {
  const current = await requireForm(ctx, projectId, id);
  const values = { ...valuesOf(current), ...body };
  await checkSender(ctx, projectId, values);
  const row = await audit.audited(
    ctx,
    (tx) => repo.updateForm(tx, projectId, id, values, ctx.clock.now()),
    (f) => f && { projectId, action: 'form.updated', target: { type: 'form', id }, changes: audit.fieldsOf(body) },
  );
  if (!row) throw notFound('Form');
  return toForm(ctx, row);
}

export async function deleteForm(ctx: AppContext, projectId: string, id: string): Promise<void> {
  const deleted = await audit.audited(
    ctx,
    (tx) => repo.deleteForm(tx, projectId, id),
    (done) => (done ? { projectId, action: 'form.deleted', target: { type: 'form', id } } : null),
  );
  if (!deleted) throw notFound('Form');
}
