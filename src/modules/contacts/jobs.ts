import { parse } from 'csv-parse/sync';
import { sql } from 'drizzle-orm';
import { parseDataPatch } from '../../domain/contact-data.js';
import { emailColumn, topicColumn } from '../../domain/csv-contacts.js';
import { ERASED_MESSAGE } from '../../domain/erasure.js';
import { iso } from '../../domain/formats.js';
import { type ImportPreset, importRow, PRESET_LABELS, presetEmailColumn } from '../../domain/import-presets.js';
import type { AppContext } from '../../platform/context.js';
import { run, type Tx } from '../../platform/db/client.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { enqueue, JobTakenOver } from '../../platform/queue.js';
import * as audit from '../audit/service.js';
import { suppress } from '../suppressions/service.js';
import { allTopics, setTopicSubscriptions, type TopicChange } from '../topics/service.js';
import * as repo from './repo.js';
import type { ContactJob } from './schemas.js';
import { dataSchema } from './schemas.js';
import { erasedAddresses, setSubscription, type UpsertInput, upsertContacts } from './service.js';

export const CONTACT_JOB_QUEUE = 'contacts.job';
export type BulkAction = 'subscribe' | 'unsubscribe' | 'delete';
type JobKind = 'import' | BulkAction;

const CHUNK = 500;
const MAX_ERRORS = 100;

interface JobRow {
  id: string;
  project_id: string;
  kind: JobKind;
  status: 'queued' | 'running' | 'completed' | 'failed';
  /** `preset` names the product whose export the CSV is; absent, it is a Postbox CSV. */
  input: { csv?: string; ids?: string[]; preset?: ImportPreset };
  total: number;
  processed: number;
  created: number;
  updated: number;
  failed: number;
  errors: { row?: number; id?: string; email?: string; message: string }[];
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export function toJobView(row: JobRow): ContactJob {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    total: row.total,
    processed: row.processed,
    progress:
      row.total === 0 ? (row.status === 'completed' ? 1 : 0) : Math.round((row.processed / row.total) * 1000) / 1000,
    created: row.created,
    updated: row.updated,
    failed: row.failed,
    errors: row.errors,
    createdAt: iso(row.created_at),
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
  };
}

function parseCsv(text: string): Record<string, string>[] {
  return parse(text, { columns: true, skip_empty_lines: true, bom: true, relax_column_count: true, trim: false });
}

/** Checks the header now so a file without an email column is refused at upload, not later. */
function checkCsvHeader(text: string, preset: ImportPreset | undefined): void {
  // The file waits for the worker in a jsonb column, which cannot hold NUL; nor is it a text CSV.
  if (text.includes('\u0000'))
    throw new AppError(400, 'INVALID_CSV', 'The file is not valid CSV: it contains NUL characters');
  let header: string[];
  try {
    header = (parse(text, { to_line: 1, bom: true }) as string[][])[0] ?? [];
  } catch (err) {
    throw new AppError(400, 'INVALID_CSV', `The file is not valid CSV: ${(err as Error).message}`);
  }
  if (preset) {
    if (!presetEmailColumn(preset, header))
      throw new AppError(
        400,
        'INVALID_CSV',
        `The CSV header has no email column of a ${PRESET_LABELS[preset]} export`,
        {
          details: { columns: header, preset },
          suggestion: `Upload the file as ${PRESET_LABELS[preset]} exported it, or import it without a preset.`,
        },
      );
    return;
  }
  if (!emailColumn(header)) {
    throw new AppError(400, 'INVALID_CSV', 'The CSV header has no "email" column', {
      details: { columns: header },
      suggestion: 'Add a header row whose columns include "email"; other columns become contact data.',
    });
  }
}

async function createJob(ctx: AppContext, projectId: string, kind: JobKind, input: JobRow['input'], total: number) {
  return ctx.db.transaction(async (tx) => {
    const r = await run(
      tx,
      sql`
      insert into contact_jobs (project_id, kind, input, total)
      values (${projectId}, ${kind}, ${JSON.stringify(input)}::jsonb, ${total})
      returning *`,
    );
    const row = r.rows[0] as JobRow;
    await enqueue(tx, CONTACT_JOB_QUEUE, { jobId: row.id });
    await audit.record(tx, {
      projectId,
      action: kind === 'import' ? 'contacts.import_started' : `contacts.bulk_${kind}`,
      target: { type: 'contact_job', id: row.id },
      changes: kind === 'import' ? { preset: (input as { preset?: string }).preset ?? null } : { contacts: total },
    });
    return toJobView(row);
  });
}

export function createImportJob(ctx: AppContext, projectId: string, csv: string, preset?: ImportPreset) {
  checkCsvHeader(csv, preset);
  return createJob(ctx, projectId, 'import', preset ? { csv, preset } : { csv }, 0);
}

export function createBulkJob(ctx: AppContext, projectId: string, action: BulkAction, ids: string[]) {
  const unique = [...new Set(ids)];
  return createJob(ctx, projectId, action, { ids: unique }, unique.length);
}

export async function getJob(ctx: AppContext, projectId: string, id: string, kinds: JobKind[]) {
  const r = await run(ctx.db, sql`select * from contact_jobs where project_id = ${projectId} and id = ${id}`);
  const row = r.rows[0] as JobRow | undefined;
  if (!row || !kinds.includes(row.kind)) throw notFound('Job');
  return toJobView(row);
}

interface ChunkResult {
  created: number;
  updated: number;
  failed: number;
  errors: JobRow['errors'];
}

async function saveProgress(tx: Tx, job: JobRow, processed: number, r: ChunkResult, total = job.total) {
  const saved = await run(
    tx,
    sql`
    update contact_jobs set
      total = ${total},
      processed = ${processed},
      created = created + ${r.created},
      updated = updated + ${r.updated},
      failed = failed + ${r.failed},
      errors = (errors || ${JSON.stringify(r.errors)}::jsonb)
    where id = ${job.id} and processed = ${job.processed}
    returning id`,
  );
  // Another runner of the job (this one lost its session and the job was taken over) committed this
  // chunk first: this one's writes are rolled back, and it leaves the job to the other.
  if (saved.rows.length === 0) throw new JobTakenOver();
}

async function importChunk(ctx: AppContext, tx: Tx, job: JobRow, rows: Record<string, string>[], firstRow: number) {
  const result: ChunkResult = { created: 0, updated: 0, failed: 0, errors: [] };
  const room = MAX_ERRORS - job.errors.length;
  const valid: UpsertInput[] = [];
  const validRows: number[] = [];
  /** Per valid row, the topics its `topic:` columns set (topic id → receives it). */
  const topicsOf: (Record<string, boolean> | null)[] = [];
  const suppressions: { email: string; reason: 'bounce' | 'manual'; detail: string }[] = [];
  const topicIds = await topicResolver(tx, job.project_id, rows);
  for (const [i, record] of rows.entries()) {
    let parsed = importRow(job.input.preset, record);
    // `topic:` columns name topics of the project, by name (any case) or id.
    let topics: Record<string, boolean> | null = null;
    if (parsed.ok && 'topics' in parsed && parsed.topics) {
      topics = {};
      for (const [named, on] of Object.entries(parsed.topics)) {
        const id = topicIds(named);
        if (!id) {
          parsed = { ok: false, email: parsed.email, message: `No topic of this project is named "${named}"` };
          break;
        }
        topics[id] = on;
      }
    }
    // The same limits on `data` as the API's.
    const data = parsed.ok ? dataSchema.safeParse(parsed.data) : undefined;
    if (parsed.ok && data!.success) {
      valid.push({ email: parsed.email, subscribed: parsed.subscribed, patch: parseDataPatch(parsed.data) });
      validRows.push(i);
      topicsOf.push(topics);
      if ('suppress' in parsed && parsed.suppress) suppressions.push({ email: parsed.email, ...parsed.suppress });
      continue;
    }
    result.failed++;
    const message = parsed.ok ? `data: ${data!.error!.issues[0]!.message}` : parsed.message;
    // Row numbers count the header as row 1, as a spreadsheet shows them.
    if (result.errors.length < room) result.errors.push({ row: firstRow + i + 2, email: parsed.email, message });
  }
  // An address erased from the project (and kept out by its hash) is a failed row: neither the
  // contact nor a suppression of it is written.
  const erased = await erasedAddresses(
    ctx,
    tx,
    job.project_id,
    valid.map((v) => v.email),
  );
  if (erased.size > 0) {
    for (const [i, v] of valid.entries()) {
      if (!erased.has(v.email)) continue;
      result.failed++;
      if (result.errors.length < room)
        result.errors.push({ row: firstRow + validRows[i]! + 2, message: ERASED_MESSAGE });
    }
    // The rows kept, with the topics of each: the two lists stay aligned.
    const kept = valid.flatMap((v, i) => (erased.has(v.email) ? [] : [i]));
    topicsOf.splice(0, topicsOf.length, ...kept.map((i) => topicsOf[i]!));
    valid.splice(0, valid.length, ...kept.map((i) => valid[i]!));
    const keptSuppressions = suppressions.filter((s) => !erased.has(s.email));
    suppressions.splice(0, suppressions.length, ...keptSuppressions);
  }
  const upserted = await upsertContacts(ctx, tx, valid, {
    projectId: job.project_id,
    subscribedByDefault: true,
    source: 'import',
    consent: { sourceId: job.id },
  });
  const topicChanges: TopicChange[] = upserted.flatMap((r, i) =>
    Object.entries(topicsOf[i] ?? {}).map(([topicId, subscribed]) => ({
      contactId: r.contact.id,
      topicId,
      subscribed,
    })),
  );
  if (topicChanges.length > 0)
    await setTopicSubscriptions(ctx, tx, job.project_id, topicChanges, 'import', { sourceId: job.id });
  // An address the other product had stopped mailing (bounced, blocklisted) stays unmailable here,
  // committed with the chunk so a resumed job neither loses nor doubles it.
  for (const s of suppressions)
    await suppress(
      tx,
      { projectId: job.project_id, email: s.email, reason: s.reason, detail: s.detail },
      ctx.clock.now(),
    );
  // A row repeating an email earlier in the chunk updates the contact the earlier row created.
  const seen = new Set<string>();
  for (const [i, r] of upserted.entries()) {
    const email = valid[i]!.email;
    if (r.isNew && !seen.has(email)) result.created++;
    else result.updated++;
    seen.add(email);
  }
  return result;
}

/** Finds a topic of the project by the name (any case) or id a `topic:` column gives; reads them only when a row names one. */
async function topicResolver(tx: Tx, projectId: string, rows: Record<string, string>[]) {
  const named = rows.length > 0 && Object.keys(rows[0]!).some((c) => topicColumn(c) !== null);
  const topics = named ? await allTopics(tx, projectId) : [];
  const byKey = new Map<string, string>();
  for (const t of topics) {
    byKey.set(t.id, t.id);
    byKey.set(t.name.toLowerCase(), t.id);
  }
  return (name: string) => byKey.get(name.toLowerCase());
}

async function bulkChunk(ctx: AppContext, tx: Tx, job: JobRow, ids: string[]) {
  const result: ChunkResult = { created: 0, updated: 0, failed: 0, errors: [] };
  const done = new Set(
    job.kind === 'delete'
      ? await repo.deleteContacts(tx, job.project_id, ids)
      : (
          await setSubscription(ctx, tx, job.project_id, ids, job.kind === 'subscribe', 'bulk', { sourceId: job.id })
        ).map((r) => r.id),
  );
  for (const id of ids) {
    if (done.has(id)) result.updated++;
    else {
      result.failed++;
      if (job.errors.length + result.errors.length < MAX_ERRORS)
        result.errors.push({ id, message: 'Contact not found' });
    }
  }
  return result;
}

/**
 * Runs an import or bulk job in chunks; each chunk commits with the job's progress, so a job
 * interrupted by a crash resumes after the last committed chunk instead of starting over. A finished
 * import keeps its counts and errors, not its file: the file is personal data nothing reads again.
 */
export async function runContactJob(ctx: AppContext, jobId: string, heartbeat: () => Promise<void>): Promise<void> {
  const load = async () =>
    (await run(ctx.db, sql`select * from contact_jobs where id = ${jobId}`)).rows[0] as JobRow | undefined;
  let job = await load();
  if (!job || job.status === 'completed' || job.status === 'failed') return;
  await run(
    ctx.db,
    sql`
    update contact_jobs set status = 'running', started_at = coalesce(started_at, ${ctx.clock.now()})
      where id = ${jobId}`,
  );

  let items: unknown[];
  try {
    items = job.kind === 'import' ? parseCsv(job.input.csv ?? '') : (job.input.ids ?? []);
  } catch (err) {
    // A file that stops parsing past its header cannot be imported at all: the job ends, saying why.
    const reason = [{ message: `The file is not valid CSV: ${(err as Error).message}` }];
    await run(
      ctx.db,
      sql`
      update contact_jobs set status = 'failed', errors = ${JSON.stringify(reason)}::jsonb,
        finished_at = ${ctx.clock.now()}
      where id = ${jobId}`,
    );
    return;
  }
  while (job.processed < items.length) {
    const slice = items.slice(job.processed, job.processed + CHUNK);
    await ctx.db.transaction(async (tx) => {
      const result =
        job!.kind === 'import'
          ? await importChunk(ctx, tx, job!, slice as Record<string, string>[], job!.processed)
          : await bulkChunk(ctx, tx, job!, slice as string[]);
      await saveProgress(tx, job!, job!.processed + slice.length, result, items.length);
    });
    job = (await load())!;
    await heartbeat();
    // Lets requests waiting on the embedded database's single connection in between chunks.
    await new Promise((resolve) => setImmediate(resolve));
  }
  await run(
    ctx.db,
    sql`
    update contact_jobs set status = 'completed', total = ${items.length}, finished_at = ${ctx.clock.now()},
      input = input - 'csv'
    where id = ${jobId}`,
  );
}
