import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig, type Role } from './config.js';
import { openDatabase } from './platform/db/client.js';
import { createProject } from './modules/projects/service.js';
import { startService } from './service.js';

const USAGE = 'usage: main.ts [all|serve|worker|migrate|project:create --name NAME]';

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
  if (!['all', 'serve', 'worker'].includes(command)) throw new Error(USAGE);

  const log = pino({ level: config.logLevel });
  const service = await startService(config, command as Role, { log });
  if (service.defaultProject) {
    const p = service.defaultProject;
    // Shown once: only the hashes are kept.
    process.stdout.write(
      `\nCreated the default project "${p.name}" (${p.id}). Keep these keys; they are not shown again.\n` +
        `  public key: ${p.publicKey}\n  secret key: ${p.secretKey}\n\n`,
    );
  }
  log.info({ role: command, url: service.url, database: service.ctx.database.kind }, 'service ready');
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

const [command = 'all', ...args] = process.argv.slice(2);
run(command, args).catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
