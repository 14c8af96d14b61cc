import { parseArgs } from 'node:util';
import { ApiClient } from './api-client.js';
import type { Command, CommandContext, Options } from './command.js';
import { campaignsList, campaignsReport, campaignsSend } from './commands/campaigns.js';
import { contactsExport, contactsImport } from './commands/contacts.js';
import { mcpCommand } from './commands/mcp.js';
import { sendCommand, trackCommand } from './commands/send.js';
import { templatesPull, templatesPush } from './commands/templates.js';
import { CliError, EXIT } from './exit-codes.js';

/** The commands that talk to a running instance over its API. */
const COMMANDS: Command[] = [
  sendCommand,
  trackCommand,
  contactsImport,
  contactsExport,
  campaignsList,
  campaignsSend,
  campaignsReport,
  templatesPull,
  templatesPush,
  mcpCommand,
];

/** The service's own commands (src/main.ts): they run the service or act on its database directly. */
const SERVER_COMMANDS: Record<string, string> = {
  all: 'Run the API and the worker in one process',
  serve: 'Run the API (and the dashboard)',
  worker: 'Run the background jobs',
  migrate: 'Apply the database migrations',
  'project:create': 'Create a project and print its keys (--name NAME)',
  'user:create': 'Create a dashboard user (--email EMAIL, the password on stdin)',
  'db:import': 'Load a file of SQL statements into the database',
};

const COMMON: Options = {
  url: { type: 'string' },
  key: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length), ...Object.keys(SERVER_COMMANDS).map((n) => n.length));
  return [
    'usage: postbox COMMAND [ARGS] [--url URL] [--key KEY] [--json]',
    '',
    'Commands that talk to a running instance (POSTBOX_URL and POSTBOX_KEY, or --url and --key):',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Commands that run the service (the environment of docs/operations.md):',
    ...Object.entries(SERVER_COMMANDS).map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`),
    '',
    'postbox COMMAND --help shows a command’s arguments and flags. --json prints results as JSON for scripts.',
    'Exit codes: 0 done, 1 failed, 2 wrong usage, 3 key refused, 4 not found, 5 refused as given, 6 unreachable or busy.',
  ].join('\n');
}

function commandHelp(c: Command): string {
  return [
    `usage: postbox ${c.name} ${c.usage}`.trimEnd(),
    '',
    c.summary,
    '',
    c.help,
    '',
    'Every command: --url URL (POSTBOX_URL), --key KEY (POSTBOX_KEY, a secret key sk_…), --json, --help',
  ].join('\n');
}

/** The command named by the first one or two words, and the words after it. */
function findCommand(argv: string[]): { command: Command; rest: string[] } | undefined {
  const two = `${argv[0]} ${argv[1]}`;
  const byTwo = COMMANDS.find((c) => c.name === two);
  if (byTwo) return { command: byTwo, rest: argv.slice(2) };
  const byOne = COMMANDS.find((c) => c.name === argv[0]);
  return byOne ? { command: byOne, rest: argv.slice(1) } : undefined;
}

async function run(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const [first] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(`${overview()}\n`);
    return;
  }
  if (first in SERVER_COMMANDS) {
    process.argv = [process.argv[0]!, 'main.ts', ...argv];
    await import('../main.js');
    return;
  }
  const found = findCommand(argv);
  if (!found) {
    const group = COMMANDS.filter((c) => c.name.startsWith(`${first} `)).map((c) => c.name);
    throw new CliError(
      EXIT.usage,
      group.length > 0
        ? `postbox ${first} needs one of: ${group.map((n) => n.split(' ')[1]).join(', ')}`
        : `Unknown command "${first}"; postbox --help lists them`,
    );
  }
  const { command, rest } = found;
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...COMMON, ...command.options },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new CliError(EXIT.usage, `${(err as Error).message}\n\n${commandHelp(command)}`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${commandHelp(command)}\n`);
    return;
  }
  const json = values.json === true;
  const ctx: CommandContext = {
    positionals,
    values,
    json,
    api: () => {
      const url = (values.url as string | undefined) ?? env.POSTBOX_URL;
      const key = (values.key as string | undefined) ?? env.POSTBOX_KEY;
      if (!url) throw new CliError(EXIT.usage, 'No instance: set POSTBOX_URL or pass --url');
      if (!key) throw new CliError(EXIT.usage, 'No key: set POSTBOX_KEY or pass --key (a secret key, sk_…)');
      if (!/^https?:\/\//.test(url))
        throw new CliError(EXIT.usage, `--url must start with http:// or https://, got "${url}"`);
      return new ApiClient({ url: url.replace(/\/+$/, ''), key });
    },
    print: (text, data) => process.stdout.write(`${json ? JSON.stringify(data) : text}\n`),
    note: (text) => process.stderr.write(`${text}\n`),
  };
  await command.run(ctx);
}

const json = process.argv.includes('--json');
run(process.argv.slice(2), process.env).catch((err) => {
  const known = err instanceof CliError;
  const message = err instanceof Error ? err.message : String(err);
  if (json) {
    process.stdout.write(`${JSON.stringify(known && err.body ? err.body : { error: { message } })}\n`);
  }
  process.stderr.write(`postbox: ${message}\n`);
  process.exitCode = known ? err.exitCode : EXIT.failed;
});
