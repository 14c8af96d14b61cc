import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';

export interface TestDatabase {
  /** Environment that points the service at this database. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/**
 * A fresh, empty database per server: a copy of the migrated PGlite template, or a new database
 * on the PostgreSQL server named by DATABASE_URL when the suite runs against PostgreSQL.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbx-test-'));
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    fs.cpSync(path.join(inject('pgliteTemplate'), 'pg'), path.join(dataDir, 'pg'), { recursive: true });
    return { env: { DATA_DIR: dataDir }, drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  }
  const name = `pbx_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: url.toString() },
    async drop() {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
