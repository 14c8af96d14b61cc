import { iso } from '../../domain/formats.js';
import { TemplateError } from '../../domain/render.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import { type FieldError, notFound, validationError } from '../../platform/http/errors.js';
import { numberedPage, pageWindow } from '../../platform/http/pagination.js';
import * as audit from '../audit/service.js';
import { assertVerifiedSender } from '../domains/service.js';
import { checkTopicId } from '../topics/service.js';
import { insertWithVersion, saveVersion, TEMPLATES_CHANNEL, versionContent } from './history.js';
import type { EmailContentRow, TemplateFields, TemplateListQuery, TemplateRow, TemplateValues } from './repo.js';
import * as repo from './repo.js';
import {
  type CreateTemplateBody,
  copyName,
  type EmailContent,
  type EmailContentBody,
  type Template,
} from './schemas.js';
import type { Author } from './versions.js';

/** The content columns campaigns share with templates. */
export { contentValues, type EmailContentRow, type TemplateValues } from './repo.js';

export function toEmailContent(row: EmailContentRow): EmailContent {
  return { id: row.id, ...repo.contentValues(row), bodySource: row.body_source };
}

/** The content of a create request as stored: optional fields absent are null. */
export function contentOf(body: EmailContentBody): TemplateValues {
  return {
    name: body.name,
    description: body.description ?? null,
    subject: body.subject,
    body: body.body,
    from: body.from,
    fromName: body.fromName ?? null,
    replyTo: body.replyTo ?? null,
    type: body.type,
    trackOpens: body.trackOpens ?? null,
    trackClicks: body.trackClicks ?? null,
  };
}

export function toTemplate(row: TemplateRow): Template {
  return {
    ...toEmailContent(row),
    topicId: row.topic_id ?? null,
    projectId: row.project_id,
    version: row.version,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/**
 * Liquid syntax errors of the subject and body, as 422 field errors (code `invalid_template`); a
 * source whose parsing runs past the bounds of the worker pool is refused the same way.
 */
/** Each part's Liquid parses; `prefix` names where the parts sit in the request (`abTest.variants.1.`). */
export async function checkSyntax(
  ctx: AppContext,
  parts: { subject?: string; body?: string },
  prefix = '',
): Promise<void> {
  const errors: FieldError[] = [];
  for (const part of ['subject', 'body'] as const) {
    const source = parts[part];
    if (source === undefined) continue;
    try {
      await ctx.templates.check(part, source);
    } catch (err) {
      if (!(err instanceof TemplateError)) throw err;
      errors.push({ field: `${prefix}${err.part}`, message: err.message, code: 'invalid_template' });
    }
  }
  if (errors.length) throw validationError(errors);
}

/** The new template and its version 1. */
export async function createTemplate(
  ctx: AppContext,
  projectId: string,
  input: CreateTemplateBody,
  author: Author,
): Promise<Template> {
  await checkSyntax(ctx, input);
  await assertVerifiedSender(ctx, ctx.db, projectId, input.from);
  await checkTemplateTopic(ctx, projectId, input.topicId, input.type);
  const values = { ...contentOf(input), bodySource: input.bodySource ?? null };
  const row = await insertWithVersion(ctx, projectId, values, author);
  return toTemplate(input.topicId ? await setTopic(ctx, projectId, row.id, input.topicId) : row);
}

/** A topic of the project, on a MARKETING template only (422 on `topicId`). */
async function checkTemplateTopic(
  ctx: AppContext,
  projectId: string,
  topicId: string | null | undefined,
  type: string,
) {
  if (!topicId) return;
  if (type !== 'MARKETING') {
    throw validationError([
      {
        field: 'topicId',
        message: 'Only a MARKETING template is about a topic',
        code: 'topic_needs_marketing',
        received: topicId,
      },
    ]);
  }
  await checkTopicId(ctx.db, projectId, topicId, 'topicId');
}

async function setTopic(ctx: AppContext, projectId: string, id: string, topicId: string | null): Promise<TemplateRow> {
  const row = await audit.audited(
    ctx,
    (tx) => repo.setTemplateTopic(tx, projectId, id, topicId),
    (r) =>
      r && {
        projectId,
        action: 'template.updated',
        target: { type: 'template', id },
        changes: { fields: ['topicId'] },
      },
  );
  if (!row) throw notFound('Template');
  await ctx.caches.changed(ctx.db, TEMPLATES_CHANNEL, `${projectId}:${id}`);
  return row;
}

/** A template of the project, or null (another project's id included). */
export async function findTemplate(ex: Executor, projectId: string, id: string): Promise<Template | null> {
  const row = await repo.findTemplate(ex, projectId, id);
  return row ? toTemplate(row) : null;
}

/** `findTemplate` for the send path: read once per process, until the template changes. */
export function cachedTemplate(ctx: AppContext, projectId: string, id: string): Promise<Template | null> {
  return ctx.caches
    .of<Template | null>(TEMPLATES_CHANNEL)
    .get(`${projectId}:${id}`, () => findTemplate(ctx.db, projectId, id));
}

export async function getTemplate(ctx: AppContext, projectId: string, id: string): Promise<Template> {
  const template = await findTemplate(ctx.db, projectId, id);
  if (!template) throw notFound('Template');
  return template;
}

/**
 * Applies any subset of the fields; a save that changes something is the template's next version.
 * A changed `from` must be on a verified domain; an unchanged one is not checked again, so a
 * template whose domain lapsed can still be edited (sending checks anew).
 */
export async function updateTemplate(
  ctx: AppContext,
  projectId: string,
  id: string,
  changeWithTopic: Partial<TemplateFields> & { topicId?: string | null },
  author: Author,
): Promise<Template> {
  const { topicId, ...change } = changeWithTopic;
  const current = await repo.findTemplate(ctx.db, projectId, id);
  if (!current) throw notFound('Template');
  await checkSyntax(ctx, change);
  if (topicId !== undefined) await checkTemplateTopic(ctx, projectId, topicId, change.type ?? current.type);
  if (change.from !== undefined && change.from !== current.from_email) {
    await assertVerifiedSender(ctx, ctx.db, projectId, change.from);
  }
  const row = await saveVersion(ctx, projectId, id, change, { event: 'edited', restoredFrom: null, author });
  if (!row) throw notFound('Template');
  if (topicId !== undefined && topicId !== current.topic_id)
    return toTemplate(await setTopic(ctx, projectId, id, topicId));
  return toTemplate(row);
}

/**
 * POST /templates/{id}/versions/{n}/restore: the template takes version n's content again, as its
 * next version (history only grows). Its sender is checked as an edit's is; nothing changes and no
 * version is added when the template already has that content.
 */
export async function restoreVersion(
  ctx: AppContext,
  projectId: string,
  id: string,
  n: number,
  author: Author,
): Promise<Template> {
  const content = await versionContent(ctx, projectId, id, n);
  const current = await repo.findTemplate(ctx.db, projectId, id);
  if (!current) throw notFound('Template');
  if (content.from !== current.from_email) await assertVerifiedSender(ctx, ctx.db, projectId, content.from);
  const row = await saveVersion(ctx, projectId, id, content, { event: 'restored', restoredFrom: n, author });
  if (!row) throw notFound('Template');
  return toTemplate(row);
}

export async function deleteTemplate(ctx: AppContext, projectId: string, id: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    if (!(await repo.deleteTemplate(tx, projectId, id))) throw notFound('Template');
    await audit.record(tx, { projectId, action: 'template.deleted', target: { type: 'template', id } });
  });
  await ctx.caches.changed(ctx.db, TEMPLATES_CHANNEL, `${projectId}:${id}`);
}

/**
 * A new template with the same content, named "<name> (copy)", its history starting afresh at
 * version 1; the sender is not checked again.
 */
export async function duplicateTemplate(
  ctx: AppContext,
  projectId: string,
  id: string,
  author: Author,
): Promise<Template> {
  const source = await repo.findTemplate(ctx.db, projectId, id);
  if (!source) throw notFound('Template');
  const values = { ...repo.fieldsOf(source), name: copyName(source.name) };
  const row = await insertWithVersion(ctx, projectId, values, author, id);
  return toTemplate(source.topic_id ? await setTopic(ctx, projectId, row.id, source.topic_id) : row);
}

export interface TemplatePage {
  data: Template[];
  total: number;
  page: number;
  pageSize: number;
  totalPages: number;
}

export async function listTemplates(
  ctx: AppContext,
  q: Omit<TemplateListQuery, 'offset' | 'limit'> & { page: number; pageSize: number },
): Promise<TemplatePage> {
  const query: TemplateListQuery = { ...q, ...pageWindow(q) };
  const [rows, total] = await Promise.all([repo.listTemplates(ctx.db, query), repo.countTemplates(ctx.db, query)]);
  return numberedPage(rows.map(toTemplate), total, q);
}

/** Campaigns and workflows referencing the template, as the modules holding them report. */
export async function templateUsage(ctx: AppContext, projectId: string, id: string) {
  if (!(await repo.findTemplate(ctx.db, projectId, id))) throw notFound('Template');
  const { campaigns, workflows } = await ctx.usage.find(ctx.db, 'template', projectId, id);
  return { templateId: id, campaigns, workflows };
}
