import { sql } from 'drizzle-orm';
import type { EmailType } from '../../domain/email.js';
import { type Executor, run } from '../../platform/db/client.js';
import type { BodySource, TemplateRow } from './repo.js';
import type { Author, VersionEvent, VersionField } from './versions.js';

/** One saved state of a template, as stored. */
export interface VersionRow {
  template_id: string;
  n: number;
  project_id: string;
  event: VersionEvent;
  restored_from: number | null;
  changed: VersionField[];
  /** Null for the first version of a template saved before history was kept. */
  author_kind: Author['kind'] | null;
  author_user_id: string | null;
  author_email: string | null;
  name: string;
  description: string | null;
  subject: string;
  body: string;
  body_source: BodySource | null;
  from_email: string;
  from_name: string | null;
  reply_to: string | null;
  type: EmailType;
  track_opens: boolean | null;
  track_clicks: boolean | null;
  created_at: Date;
}

/** A version without its body and block document: what a list of versions shows. */
export type VersionSummaryRow = Omit<VersionRow, 'body' | 'body_source'>;

const jsonb = (v: BodySource | null) => (v === null ? sql`null` : sql`${JSON.stringify(v)}::jsonb`);

/** A text[] parameter, one placeholder per element (an empty list is an empty array, not null). */
const textArray = (values: string[]) =>
  sql`array[${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )}]::text[]`;

/**
 * Records the template's content as it now stands as its version `row.version`. The author's email
 * is copied as it is now, so the history still names them after they change it or leave.
 */
export async function insertVersion(
  ex: Executor,
  row: TemplateRow,
  entry: { event: VersionEvent; restoredFrom: number | null; changed: VersionField[]; author: Author },
): Promise<void> {
  const userId = entry.author.kind === 'user' ? entry.author.userId : null;
  await run(
    ex,
    sql`
    insert into template_versions (template_id, n, project_id, event, restored_from, changed, author_kind,
      author_user_id, author_email, name, description, subject, body, body_source, from_email, from_name, reply_to,
      type, track_opens, track_clicks, created_at)
    values (${row.id}, ${row.version}, ${row.project_id}, ${entry.event}, ${entry.restoredFrom},
      ${textArray(entry.changed)},
      ${entry.author.kind}, ${userId}, (select email from users where id = ${userId}::uuid),
      ${row.name}, ${row.description}, ${row.subject}, ${row.body}, ${jsonb(row.body_source)}, ${row.from_email},
      ${row.from_name}, ${row.reply_to}, ${row.type}, ${row.track_opens}, ${row.track_clicks}, ${row.updated_at})`,
  );
}

const SUMMARY = sql`template_id, n, project_id, event, restored_from, changed, author_kind, author_user_id,
  author_email, name, description, subject, from_email, from_name, reply_to, type, created_at`;

/** Newest first, `limit + 1` rows (the extra one tells that more follow), below version `before`. */
export async function listVersions(
  ex: Executor,
  projectId: string,
  templateId: string,
  q: { limit: number; before: number | null },
): Promise<VersionSummaryRow[]> {
  const r = await run(
    ex,
    sql`
    select ${SUMMARY} from template_versions
    where project_id = ${projectId} and template_id = ${templateId}
      ${q.before === null ? sql`` : sql`and n < ${q.before}`}
    order by n desc limit ${q.limit + 1}`,
  );
  return r.rows as VersionSummaryRow[];
}

export async function countVersions(ex: Executor, projectId: string, templateId: string): Promise<number> {
  const r = await run(
    ex,
    sql`select count(*)::int as n from template_versions where project_id = ${projectId} and template_id = ${templateId}`,
  );
  return (r.rows[0] as { n: number }).n;
}

export async function findVersion(
  ex: Executor,
  projectId: string,
  templateId: string,
  n: number,
): Promise<VersionRow | null> {
  const r = await run(
    ex,
    sql`select * from template_versions where project_id = ${projectId} and template_id = ${templateId} and n = ${n}`,
  );
  return (r.rows[0] as VersionRow | undefined) ?? null;
}
