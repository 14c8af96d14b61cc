import fs from 'node:fs';
import path from 'node:path';
import type { Template } from '../../api.js';
import { slugify } from '../../domain/slug.js';
import { type Command, stringFlag } from '../command.js';
import { CliError, EXIT } from '../exit-codes.js';

/** What a template's `.json` file beside its `.html` body holds. */
interface TemplateFile {
  id?: string;
  name: string;
  subject: string;
  from: string;
  fromName?: string | null;
  replyTo?: string | null;
  type?: Template['type'];
  description?: string | null;
}

const META_KEYS = ['id', 'name', 'description', 'subject', 'from', 'fromName', 'replyTo', 'type'] as const;

const TITLE = /<title[^>]*>([^<]*)<\/title>/i;

export const templatesPull: Command = {
  name: 'templates pull',
  summary: 'Write every template to a folder: NAME.html (the body) and NAME.json (the rest)',
  usage: '[DIR]',
  help: 'Writes into DIR (./templates by default). Keep the folder in git and change templates with `templates push`.',
  options: {},
  remote: true,
  async run(ctx) {
    const dir = path.resolve(ctx.positionals[0] ?? 'templates');
    fs.mkdirSync(dir, { recursive: true });
    const api = ctx.api();
    const written: { id: string; file: string }[] = [];
    const used = new Set<string>();
    for (let page = 1; ; page++) {
      const res = await api.get<{ data: Template[]; totalPages: number }>(
        `/templates?page=${page}&pageSize=100&sort=createdAt&dir=asc`,
      );
      for (const t of res.data) {
        let slug = slugify(t.name, 'template');
        if (used.has(slug)) slug = `${slug}-${t.id.slice(0, 8)}`;
        used.add(slug);
        const meta = Object.fromEntries(META_KEYS.map((k) => [k, t[k]]));
        fs.writeFileSync(path.join(dir, `${slug}.html`), t.body);
        fs.writeFileSync(path.join(dir, `${slug}.json`), `${JSON.stringify(meta, null, 2)}\n`);
        written.push({ id: t.id, file: `${slug}.html` });
      }
      if (page >= res.totalPages) break;
    }
    ctx.print(`Pulled ${written.length} templates into ${dir}`, { dir, templates: written });
  },
};

export const templatesPush: Command = {
  name: 'templates push',
  summary: 'Create or update templates from a folder of HTML files',
  usage: '[DIR] [--from ADDRESS] [--type TYPE]',
  help:
    'Each NAME.html is a template body. NAME.json beside it gives its name, subject, sender and type, and its id once\n' +
    'pushed (written back after a create, so the next push updates it). An HTML file without one takes its name\n' +
    'from the file, its subject from <title>, and its sender from --from.\n' +
    '  --from ADDRESS   the sender of templates without a .json\n' +
    '  --type TYPE      MARKETING (default), TRANSACTIONAL or HEADLESS, for templates without a .json',
  options: { from: { type: 'string' }, type: { type: 'string' } },
  remote: true,
  async run(ctx) {
    const dir = path.resolve(ctx.positionals[0] ?? 'templates');
    if (!fs.existsSync(dir)) throw new CliError(EXIT.usage, `No folder ${dir}`);
    const api = ctx.api();
    const files = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.html'))
      .sort();
    const pushed: { file: string; id: string; action: 'created' | 'updated' }[] = [];
    for (const file of files) {
      const body = fs.readFileSync(path.join(dir, file), 'utf8');
      const metaPath = path.join(dir, file.replace(/\.html$/, '.json'));
      const meta = readMeta(metaPath) ?? {
        name: file.replace(/\.html$/, ''),
        subject: TITLE.exec(body)?.[1]?.trim() || file.replace(/\.html$/, ''),
        from: stringFlag(ctx.values, 'from') ?? '',
        type: (stringFlag(ctx.values, 'type') as Template['type'] | undefined) ?? 'MARKETING',
      };
      if (!meta.from) throw new CliError(EXIT.usage, `${file} has no .json with a "from"; give --from`);
      const { id, ...fields } = meta;
      const content = { ...fields, body };
      let saved: Template | undefined;
      if (id) {
        saved = await api.patch<Template>(`/templates/${encodeURIComponent(id)}`, content).catch((err) => {
          if (err instanceof CliError && err.exitCode === EXIT.notFound) return undefined;
          throw new CliError(err.exitCode ?? EXIT.failed, `${file}: ${err.message}`, err.body);
        });
      }
      const action = saved ? 'updated' : 'created';
      if (!saved) {
        saved = await api.post<Template>('/templates', content).catch((err) => {
          throw new CliError(err.exitCode ?? EXIT.failed, `${file}: ${err.message}`, err.body);
        });
        const written = Object.fromEntries(META_KEYS.map((k) => [k, saved![k]]));
        fs.writeFileSync(metaPath, `${JSON.stringify(written, null, 2)}\n`);
      }
      pushed.push({ file, id: saved.id, action });
      ctx.note(`${action} ${file} (${saved.id})`);
    }
    const created = pushed.filter((p) => p.action === 'created').length;
    ctx.print(`Pushed ${pushed.length} templates: ${created} created, ${pushed.length - created} updated`, {
      templates: pushed,
    });
  },
};

function readMeta(file: string): TemplateFile | undefined {
  if (!fs.existsSync(file)) return undefined;
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as TemplateFile;
  } catch {
    throw new CliError(EXIT.usage, `${file} is not valid JSON`);
  }
}
