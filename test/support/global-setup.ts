import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/platform/db/client.js';
import { startEmbeddedPostgres } from '../../src/platform/db/embedded.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A superuser URL of the server the tests make their databases on. */
    serverUrl: string;
    /** A migrated database on that server, copied for each test database. */
    templateDatabase: string;
  }
}

/**
 * The suite runs on the PostgreSQL server named by DATABASE_URL or, without one, on an embedded
 * cluster started here the way the service starts its own. Migrating a database takes a while;
 * each test database is a copy of one migrated template (`create database … template …`).
 */
export default async function setup(project: TestProject) {
  let serverUrl = process.env.DATABASE_URL;
  let dataDir: string | undefined;
  let release = async () => {};
  if (!serverUrl) {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbx-cluster-'));
    // As root the cluster runs as `postgres`, which must be able to enter this folder.
    fs.chmodSync(dataDir, 0o755);
    const cluster = await startEmbeddedPostgres(dataDir, {
      settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' },
    });
    serverUrl = cluster.url;
    release = cluster.release;
  }
  const template = `pbx_template_${randomBytes(4).toString('hex')}`;
  await admin(serverUrl, `create database ${template}`);
  const url = new URL(serverUrl);
  url.pathname = `/${template}`;
  const database = await openDatabase({ databaseUrl: url.toString(), dataDir: os.tmpdir() });
  await database.migrate();
  await database.close();

  project.provide('serverUrl', serverUrl);
  project.provide('templateDatabase', template);
  return async () => {
    await admin(serverUrl!, `drop database if exists ${template} with (force)`);
    await release();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  };
}

export async function admin(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
