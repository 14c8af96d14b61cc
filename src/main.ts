import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import { loadConfig, type Role } from './config.js';
import { normalizeEmail } from './domain/email.js';
import { newPassword } from './modules/accounts/schemas.js';
import { createUser } from './modules/accounts/service.js';
import { createProject } from './modules/projects/service.js';
import { openDatabase } from './platform/db/client.js';
import { importDataDump } from './platform/db/import.js';
import { limitHeapGrowth } from './platform/heap.js';
import { startService } from './start.js';

const USAGE =
  'usage: main.ts [all|serve|worker|migrate|project:create --name NAME|user:create --email EMAIL < password|' +
  'db:import FILE.sql]';

async function run(command: string, args: string[]): Promise<void> {
  const config = loadConfig();
  if (command === 'migrate') {
    const database = await openDatabase(config);
    await database.migrate();
    await database.close();
    return;
  }
  if (command === 'project:create') {
    const { values } = parseArgs({ args, options: { name: { type: 'string' } } });
    if (!values.name?.trim()) throw new Error(`--name is required\n${USAGE}`);
    const database = await openDatabase(config);
    await database.migrate();
    const project = await createProject(database.db, values.name.trim());
    await database.close();
    process.stdout.write(`${JSON.stringify(project)}\n`);
    return;
  }
  if (command === 'user:create') {
    const { values } = parseArgs({ args, options: { email: { type: 'string' } } });
    const email = normalizeEmail(values.email ?? '');
    if (!email) throw new Error(`--email needs a valid address\n${USAGE}`);
    // Read from stdin, never from the command line, where other users of the machine could see it.
    const password = (await readStdin()).split(/\r?\n/)[0] ?? '';
    const checked = newPassword.safeParse(password);
    if (!checked.success) throw new Error(`The password on stdin is too short: ${checked.error.issues[0]!.message}`);
    const database = await openDatabase(config);
    await database.migrate();
    const user = await createUser(database.db, email, password, new Date());
    await database.close();
    if (!user) throw new Error(`A user with the email ${email} already exists`);
    process.stdout.write(`${JSON.stringify({ id: user.id, email: user.email })}\n`);
    return;
  }
  if (command === 'db:import') {
    const file = args[0];
    if (!file) throw new Error(`a file of SQL statements is required\n${USAGE}`);
    const database = await openDatabase(config);
    try {
      await database.migrate();
      await importDataDump(database, fs.readFileSync(file, 'utf8'));
      process.stdout.write(`Imported ${file}.\n`);
    } finally {
      await database.close();
    }
    return;
  }
  if (!['all', 'serve', 'worker'].includes(command)) throw new Error(USAGE);

  if (command === 'worker') limitHeapGrowth(config.workerHeapGrowthPercent);
  const log = logger(config.logLevel);
  const service = await startService(config, command as Role, { log });
  if (service.defaultProject) {
    const p = service.defaultProject;
    // Shown once: only the hashes are kept.
    process.stdout.write(
      `\nCreated the default project "${p.name}" (${p.id}). Keep these keys; they are not shown again.\n` +
        `  public key: ${p.publicKey}\n  secret key: ${p.secretKey}\n\n`,
    );
  }
  if (service.setupToken) {
    process.stdout.write(
      `Open ${config.publicUrl}/app/ to create the owner account with this setup token:\n` +
        `  ${service.setupToken}\n\n`,
    );
  }
  if (!config.smtpUrl && command !== 'serve') {
    process.stdout.write(
      'No SMTP_URL: mail is captured, not sent. ' +
        `Each message is written to ${path.resolve(config.dataDir, 'outbox')}\n` +
        `and served by GET /emails/{id}/raw. Any sender address works until a relay is configured.\n\n`,
    );
  }
  const submission = service.submissionPorts;
  if (submission) {
    const on = (port: number | undefined, how: string) =>
      port === undefined ? [] : [`${config.submission!.host}:${port} (${how})`];
    const tls = config.submission!.tls ? 'STARTTLS' : 'no TLS';
    process.stdout.write(
      `SMTP submission on ${[...on(submission.port, tls), ...on(submission.smtpsPort, 'implicit TLS')].join(', ')}: ` +
        "any user name, a project's secret key as the password.\n\n",
    );
  }
  log.info(
    {
      role: command,
      url: service.url,
      database: service.ctx.database.location,
      ...(submission ? { submissionPort: submission.port, submissionSmtpsPort: submission.smtpsPort } : {}),
    },
    'service ready',
  );
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await service.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** Readable lines for a person at a terminal; JSON lines for everything else (files, collectors). */
function logger(level: string): Logger {
  if (!process.stdout.isTTY) return pino({ level });
  return pino({ level }, pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' }));
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const [command = 'all', ...args] = process.argv.slice(2);
run(command, args).catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
