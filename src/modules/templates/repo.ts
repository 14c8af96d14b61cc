import { type SQL, sql } from 'drizzle-orm';
import type { EmailType } from '../../domain/email.js';
import { likePattern } from '../../domain/formats.js';
import { type Executor, run } from '../../platform/db/client.js';
import { listOrder, type NamedListQuery } from '../../platform/db/list-order.js';

/** The columns of the content a template and a campaign share. */
export interface EmailContentRow {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  subject: string;
  body: string;
  from_email: string;
  from_name: string | null;
  reply_to: string | null;
  type: EmailType;
  body_source: BodySource | null;
  track_opens: boolean | null;
  track_clicks: boolean | null;
  created_at: Date;
  updated_at: Date;
}

/** A block editor's document of the body (the server never reads inside it). */
export type BodySource = Record<string, unknown>;

export interface TemplateRow extends EmailContentRow {
  /** The number of its latest version (template_versions.n). */
  version: number;
  /** The topic its MARKETING sends are about. */
  topic_id: string | null;
}

/** Sets the topic of a template (a send setting: no version is made for it). */
export async function setTemplateTopic(
  ex: Executor,
  projectId: string,
  id: string,
  topicId: string | null,
): Promise<TemplateRow | null> {
  const r = await run(
    ex,
    sql`update templates set topic_id = ${topicId} where project_id = ${projectId} and id = ${id} returning *`,
  );
  return (r.rows[0] as TemplateRow | undefined) ?? null;
}

/** The content of a template, or of a campaign, as written. */
export interface TemplateValues {
  name: string;
  description: string | null;
  subject: string;
  body: string;
  from: string;
  fromName: string | null;
  replyTo: string | null;
  type: EmailType;
  /** Null: the project's tracking setting for the type. */
  trackOpens: boolean | null;
  trackClicks: boolean | null;
}

/** The content columns of a row (a template's, a campaign's or a template version's). */
export type ContentColumns = Pick<
  EmailContentRow,
  | 'name'
  | 'description'
  | 'subject'
  | 'body'
  | 'from_email'
  | 'from_name'
  | 'reply_to'
  | 'type'
  | 'body_source'
  | 'track_opens'
  | 'track_clicks'
>;

/** The content of a row, to write again (a copy). */
export function contentValues(row: ContentColumns): TemplateValues {
  return {
    name: row.name,
    description: row.description,
    subject: row.subject,
    body: row.body,
    from: row.from_email,
    fromName: row.from_name,
    replyTo: row.reply_to,
    type: row.type,
    trackOpens: row.track_opens,
    trackClicks: row.track_clicks,
  };
}

/** A template's values: the shared content and its body's block document. */
export interface TemplateFields extends TemplateValues {
  bodySource: BodySource | null;
}

/** Every value of a row, to compare with a change or to write again. */
export const fieldsOf = (row: ContentColumns): TemplateFields => ({
  ...contentValues(row),
  bodySource: row.body_source,
});

/** A JSON value as a jsonb parameter; null stays SQL null rather than JSON `null`. */
const jsonb = (v: BodySource | null) => (v === null ? sql`null` : sql`${JSON.stringify(v)}::jsonb`);

const COLUMNS: Record<keyof TemplateValues, SQL> = {
  name: sql`name`,
  description: sql`description`,
  subject: sql`subject`,
  body: sql`body`,
  from: sql`from_email`,
  fromName: sql`from_name`,
  replyTo: sql`reply_to`,
  type: sql`type`,
  trackOpens: sql`track_opens`,
  trackClicks: sql`track_clicks`,
};

export async function insertTemplate(
  ex: Executor,
  projectId: string,
  v: TemplateFields,
  now: Date,
): Promise<TemplateRow> {
  const r = await run(
    ex,
    sql`
    insert into templates (project_id, name, description, subject, body, body_source, from_email, from_name,
      reply_to, type, track_opens, track_clicks, created_at, updated_at)
    values (${projectId}, ${v.name}, ${v.description}, ${v.subject}, ${v.body}, ${jsonb(v.bodySource)}, ${v.from},
      ${v.fromName}, ${v.replyTo}, ${v.type}, ${v.trackOpens}, ${v.trackClicks}, ${now}, ${now})
    returning *`,
  );
  return r.rows[0] as TemplateRow;
}

/** `lock`: hold the row until the transaction ends, so the content compared is the content changed. */
export async function findTemplate(
  ex: Executor,
  projectId: string,
  id: string,
  lock = false,
): Promise<TemplateRow | null> {
  const r = await run(
    ex,
    sql`select * from templates where project_id = ${projectId} and id = ${id} ${lock ? sql`for update` : sql``}`,
  );
  return (r.rows[0] as TemplateRow | undefined) ?? null;
}

/**
 * Sets the given fields (undefined ones are left alone) as the template's next version; null if the
 * template is not the project's.
 */
export async function updateTemplate(
  ex: Executor,
  projectId: string,
  id: string,
  change: Partial<TemplateFields>,
  now: Date,
): Promise<TemplateRow | null> {
  const sets = (Object.keys(COLUMNS) as (keyof TemplateValues)[])
    .filter((k) => change[k] !== undefined)
    .map((k) => sql`${COLUMNS[k]} = ${change[k]}`);
  if (change.bodySource !== undefined) sets.push(sql`body_source = ${jsonb(change.bodySource)}`);
  const r = await run(
    ex,
    sql`
    update templates set ${sql.join([...sets, sql`version = version + 1`, sql`updated_at = ${now}`], sql`, `)}
    where project_id = ${projectId} and id = ${id}
    returning *`,
  );
  return (r.rows[0] as TemplateRow | undefined) ?? null;
}

export async function deleteTemplate(ex: Executor, projectId: string, id: string): Promise<boolean> {
  const r = await run(ex, sql`delete from templates where project_id = ${projectId} and id = ${id} returning id`);
  return r.rows.length > 0;
}

export interface TemplateListQuery extends NamedListQuery {
  type?: EmailType;
}

function listFilter(q: TemplateListQuery): SQL {
  const parts: SQL[] = [sql`project_id = ${q.projectId}`];
  if (q.type) parts.push(sql`type = ${q.type}`);
  if (q.search) {
    const pattern = likePattern(q.search);
    parts.push(sql`(name ilike ${pattern} or description ilike ${pattern} or subject ilike ${pattern})`);
  }
  return sql.join(parts, sql` and `);
}

export async function listTemplates(ex: Executor, q: TemplateListQuery): Promise<TemplateRow[]> {
  const r = await run(
    ex,
    sql`
    select * from templates where ${listFilter(q)}
    ${listOrder(q.sort, q.dir)}
    limit ${q.limit} offset ${q.offset}`,
  );
  return r.rows as TemplateRow[];
}

export async function countTemplates(ex: Executor, q: TemplateListQuery): Promise<number> {
  const r = await run(ex, sql`select count(*)::int as n from templates where ${listFilter(q)}`);
  return (r.rows[0] as { n: number }).n;
}
