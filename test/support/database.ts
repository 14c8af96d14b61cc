import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { afterEach, inject } from 'vitest';
import { admin } from './global-setup.js';

export interface TestDatabase {
  /** Environment that points the service at this database. */
  env: Record<string, string>;
  /** The database's URL. */
  url: string;
  drop(): Promise<void>;
}

/** A fresh, migrated database per server, copied from the suite's template, and a data directory. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbx-test-'));
  const serverUrl = inject('serverUrl');
  const name = `pbx_test_${randomBytes(6).toString('hex')}`;
  await cloneTemplate(serverUrl, name);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: url.toString() },
    url: url.toString(),
    async drop() {
      await admin(serverUrl, `drop database if exists ${name} with (force)`);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Copying needs the template to have no other session: test files starting together take turns. */
async function cloneTemplate(serverUrl: string, name: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await admin(serverUrl, `create database ${name} template ${inject('templateDatabase')}`);
    } catch (err) {
      if ((err as { code?: string }).code !== '55006' || attempt >= 50) throw err;
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 80));
    }
  }
}

/**
 * Cleanups run after each test of the current scope, the last registered first, and `database()`,
 * a fresh database those cleanups drop.
 */
export function useCleanups(): { cleanups: (() => Promise<void>)[]; database(): Promise<TestDatabase> } {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    // Processes first: a database cannot be dropped while a service still holds it.
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    cleanups,
    async database() {
      const db = await createTestDatabase();
      cleanups.push(() => db.drop());
      return db;
    },
  };
}

const MIGRATIONS = path.resolve(import.meta.dirname, '../../src/platform/db/migrations');

/**
 * Makes `db` (a copy of the migrated template) over as a database of an older release: empty, and
 * migrated only up to the migration before `firstLeftOut` (a tag such as `0030`).
 */
export async function migratedBefore(db: TestDatabase, firstLeftOut: string): Promise<void> {
  const url = new URL(db.url);
  await admin(inject('serverUrl'), `drop database ${url.pathname.slice(1)} with (force)`);
  await admin(inject('serverUrl'), `create database ${url.pathname.slice(1)}`);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'pbx-migrations-'));
  try {
    const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS, 'meta/_journal.json'), 'utf8'));
    journal.entries = journal.entries.filter((e: { tag: string }) => e.tag < firstLeftOut);
    fs.mkdirSync(path.join(folder, 'meta'));
    fs.writeFileSync(path.join(folder, 'meta/_journal.json'), JSON.stringify(journal));
    for (const e of journal.entries)
      fs.copyFileSync(path.join(MIGRATIONS, `${e.tag}.sql`), path.join(folder, `${e.tag}.sql`));
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      await migrate(drizzle(c), { migrationsFolder: folder });
    } finally {
      await c.end();
    }
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/** Runs an insert `… returning id` on a database of an older release and returns the id. */
export async function insertedId(c: pg.Client, statement: string, params: unknown[] = []): Promise<string> {
  return (await c.query(statement, params)).rows[0].id as string;
}
