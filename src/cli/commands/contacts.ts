import fs from 'node:fs';
import path from 'node:path';
import type { Contact, ContactJob } from '../../api.js';
import { IMPORT_PRESETS, isImportPreset } from '../../domain/import-presets.js';
import type { ApiClient } from '../api-client.js';
import { type Command, stringFlag } from '../command.js';
import { csvChunks, csvHeader } from '../csv-chunks.js';
import { CliError, EXIT } from '../exit-codes.js';
import { Progress } from '../progress.js';

/** Under the API's 5 MB a file, with room for the header and the multipart framing. */
const DEFAULT_CHUNK_MB = 4;
const MAX_CHUNK_MB = 4.9;
const POLL_MS = 200;
const KEPT_ERRORS = 20;
/** A busy or unreachable instance is waited for this many times (1 s, 2 s, 4 s … up to 30 s apart) before giving up. */
const RETRIES = 8;

/**
 * `attempt`, again while the instance is busy, unavailable or unreachable: a long import should
 * ride out a database that is slow for a while. Other failures end it at once.
 */
async function patiently<T>(attempt: () => Promise<T>, note: (text: string) => void): Promise<T> {
  for (let tries = 0; ; tries++) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof CliError) || err.exitCode !== EXIT.unavailable || tries >= RETRIES) throw err;
      const wait = Math.min(1000 * 2 ** tries, 30_000);
      note(`\n${err.message}; trying again in ${wait / 1000} s`);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** Where an import stands, kept beside the file so that a second run resumes after the last finished chunk. */
interface ImportState {
  url: string;
  size: number;
  mtimeMs: number;
  chunkBytes: number;
  /** The product whose export the file is; an import resumes only with the same one. */
  preset?: string;
  offset: number;
  rows: number;
  created: number;
  updated: number;
  failed: number;
  errors: { row?: number; email?: string; message: string }[];
}

const stateFileOf = (file: string) => `${file}.postbox-import.json`;

function readState(
  file: string,
  stat: fs.Stats,
  url: string,
  chunkBytes: number,
  preset: string | undefined,
): ImportState | undefined {
  try {
    const state = JSON.parse(fs.readFileSync(stateFileOf(file), 'utf8')) as ImportState;
    const same =
      state.size === stat.size &&
      state.mtimeMs === stat.mtimeMs &&
      state.url === url &&
      state.chunkBytes === chunkBytes &&
      state.preset === preset;
    return same ? state : undefined;
  } catch {
    return undefined;
  }
}

async function finishedJob(api: ApiClient, jobId: string, note: (text: string) => void): Promise<ContactJob> {
  for (;;) {
    const job = await patiently(() => api.get<ContactJob>(`/contacts/import/${jobId}`), note);
    if (job.status === 'completed' || job.status === 'failed') return job;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

export const contactsImport: Command = {
  name: 'contacts import',
  summary: 'Import contacts from a CSV file of any size, resumably',
  usage: 'FILE.csv [--preset mailchimp|listmonk|plunk] [--restart] [--chunk-mb N]',
  help:
    'The header names the columns: "email" (required), "subscribed" (true/false), every other column becomes data.\n' +
    "With --preset, the file is another product's export as it downloaded it, mapped as the README describes:\n" +
    '  --preset mailchimp   an audience export file (subscribed, unsubscribed or cleaned members)\n' +
    '  --preset listmonk    a subscribers export (blocklisted addresses are suppressed)\n' +
    '  --preset plunk       a contacts export\n' +
    'The file is sent in parts of --chunk-mb megabytes (4 by default) to the import job, one after the other, with\n' +
    'a progress bar and an estimate of the time left on stderr. Where it stands is kept in FILE.csv.postbox-import.json:\n' +
    'if the import stops (a failure, Ctrl-C), running the command again resumes after the last finished part.\n' +
    '  --restart       start from the beginning even if an earlier run stopped part way\n' +
    '  --chunk-mb N    the size of each part, at most 4.9',
  options: { restart: { type: 'boolean' }, 'chunk-mb': { type: 'string' }, preset: { type: 'string' } },
  remote: true,
  async run(ctx) {
    const [given] = ctx.positionals;
    const preset = stringFlag(ctx.values, 'preset');
    if (preset !== undefined && !isImportPreset(preset))
      throw new CliError(EXIT.usage, `--preset is one of ${IMPORT_PRESETS.join(', ')}, not "${preset}"`);
    if (!given) throw new CliError(EXIT.usage, 'contacts import needs a CSV FILE');
    const file = path.resolve(given);
    if (!fs.existsSync(file)) throw new CliError(EXIT.usage, `No file ${file}`);
    const chunkMb = Number(stringFlag(ctx.values, 'chunk-mb') ?? DEFAULT_CHUNK_MB);
    if (!(chunkMb > 0 && chunkMb <= MAX_CHUNK_MB))
      throw new CliError(EXIT.usage, `--chunk-mb is above 0 and at most ${MAX_CHUNK_MB}`);
    const chunkBytes = Math.floor(chunkMb * 1024 * 1024);
    const api = ctx.api();
    const stat = fs.statSync(file);
    const header = await csvHeader(file).catch(() => {
      throw new CliError(EXIT.usage, `${given} has no CSV header line`);
    });
    const resumed = ctx.values.restart ? undefined : readState(file, stat, api.url, chunkBytes, preset);
    const state: ImportState = resumed ?? {
      url: api.url,
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      chunkBytes,
      preset,
      offset: header.length,
      rows: 0,
      created: 0,
      updated: 0,
      failed: 0,
      errors: [],
    };
    if (resumed) ctx.note(`Resuming ${given} after row ${resumed.rows.toLocaleString('en-US')}`);
    const progress = new Progress('import', stat.size, state.offset);
    progress.update(state.offset, state.rows);
    for await (const chunk of csvChunks(file, state.offset, chunkBytes)) {
      const form = new FormData();
      form.set(
        'file',
        new Blob([header as Uint8Array<ArrayBuffer>, chunk.rows as Uint8Array<ArrayBuffer>], { type: 'text/csv' }),
        path.basename(file),
      );
      // Sent again after a failure that may have come after the upload was taken: its rows are then
      // imported twice, which upserts by email make harmless.
      const accepted = await patiently(
        () =>
          api.request<{ jobId: string }>(
            'POST',
            preset ? `/contacts/import?preset=${preset}` : '/contacts/import',
            form,
          ),
        ctx.note,
      );
      const job = await finishedJob(api, accepted.jobId, ctx.note);
      if (job.status === 'failed') {
        progress.end();
        throw new CliError(
          EXIT.rejected,
          `The import of rows after ${state.rows} failed: ${job.errors[0]?.message ?? 'no reason given'}`,
          job,
        );
      }
      // Row numbers of a part count its own header as row 1; the file's count every row before it too.
      for (const e of job.errors) {
        if (state.errors.length < KEPT_ERRORS)
          state.errors.push({ ...e, row: e.row === undefined ? undefined : e.row + state.rows });
      }
      state.offset = chunk.end;
      state.rows += chunk.rowCount;
      state.created += job.created;
      state.updated += job.updated;
      state.failed += job.failed;
      // Written aside and renamed: a kill mid-write leaves the last whole state, never half of one.
      fs.writeFileSync(`${stateFileOf(file)}.tmp`, JSON.stringify(state));
      fs.renameSync(`${stateFileOf(file)}.tmp`, stateFileOf(file));
      progress.update(state.offset, state.rows);
    }
    progress.update(stat.size, state.rows);
    progress.end();
    fs.rmSync(stateFileOf(file), { force: true });
    fs.rmSync(`${stateFileOf(file)}.tmp`, { force: true });
    const summary = {
      rows: state.rows,
      created: state.created,
      updated: state.updated,
      failed: state.failed,
      errors: state.errors,
    };
    const errors = state.errors
      .map((e) => `\n  row ${e.row ?? '?'}${e.email ? ` (${e.email})` : ''}: ${e.message}`)
      .join('');
    ctx.print(
      `Imported ${state.rows.toLocaleString('en-US')} rows: ${state.created} created, ${state.updated} updated, ${state.failed} failed${errors}`,
      summary,
    );
    if (state.failed > 0) process.exitCode = EXIT.rejected;
  },
};

/** A CSV cell: quoted when it holds a separator, a quote, a line break or edge spaces; objects as JSON. */
export function csvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const contactsExport: Command = {
  name: 'contacts export',
  summary: 'Write every contact as CSV (the format `contacts import` reads)',
  usage: '[--out FILE] [--subscribed true|false]',
  help:
    'Columns: email, subscribed, then one per top-level data key. To stdout, or to --out FILE with progress on stderr.\n' +
    '  --subscribed BOOL   only subscribed (true) or unsubscribed (false) contacts',
  options: { out: { type: 'string' }, subscribed: { type: 'string' } },
  remote: true,
  async run(ctx) {
    const api = ctx.api();
    const subscribed = stringFlag(ctx.values, 'subscribed');
    if (subscribed !== undefined && subscribed !== 'true' && subscribed !== 'false') {
      throw new CliError(EXIT.usage, '--subscribed is true or false');
    }
    const { fields } = await api.get<{ fields: { field: string; isCustom: boolean }[] }>('/contacts/fields');
    const keys = [
      ...new Set(
        fields.filter((f) => f.isCustom && f.field.startsWith('data.')).map((f) => f.field.slice(5).split('.')[0]!),
      ),
    ].filter((k) => k !== 'email' && k !== 'subscribed');
    const outPath = stringFlag(ctx.values, 'out');
    const out = outPath ? fs.createWriteStream(outPath) : process.stdout;
    const write = (line: string) =>
      out.write(`${line}\n`) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r()));
    await write(['email', 'subscribed', ...keys].map(csvCell).join(','));
    let cursor: string | null = null;
    let rows = 0;
    let total = 0;
    let lastStamp = '';
    const atLastStamp = new Set<string>();
    do {
      const query = new URLSearchParams({ limit: '100', sort: 'createdAt', dir: 'asc' });
      if (subscribed) query.set('subscribed', subscribed);
      if (cursor) query.set('cursor', cursor);
      const page: { data: Contact[]; cursor: string | null; hasMore: boolean; total: number } = await api.get(
        `/contacts?${query}`,
      );
      total = page.total;
      for (const c of page.data) {
        // The cursor carries `createdAt` to the millisecond, the database to the microsecond: the
        // next page can begin again with contacts of the last millisecond, which are written once.
        if (c.createdAt !== lastStamp) {
          lastStamp = c.createdAt;
          atLastStamp.clear();
        }
        if (atLastStamp.has(c.id)) continue;
        atLastStamp.add(c.id);
        await write([c.email, c.subscribed, ...keys.map((k) => c.data[k])].map(csvCell).join(','));
        rows++;
      }
      if (outPath && rows % 10_000 < 100)
        ctx.note(`exported ${rows.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}`);
      cursor = page.hasMore ? page.cursor : null;
    } while (cursor);
    if (outPath) {
      await new Promise<void>((resolve, reject) =>
        (out as fs.WriteStream).end((err?: Error | null) => (err ? reject(err) : resolve())),
      );
      ctx.print(`Exported ${rows} contacts to ${outPath}`, { rows, file: outPath });
    }
  },
};
