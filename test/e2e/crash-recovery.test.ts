import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, run } from '../../src/platform/db/client.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { type ChildServer, client, eventually, printedKeys, spawnService } from '../support/server.js';

let db: TestDatabase;
let server: ChildServer | undefined;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await server?.kill();
  await db.drop();
});

describe('a process killed in the middle of an import', () => {
  it('finishes the import after restart, with every row applied once', async () => {
    server = await spawnService(db.env);
    const secret = printedKeys(server.output()).secretKey;
    let api = client(server.url, secret);

    const rows = 60_000;
    const csv = ['email,plan,seq', ...Array.from({ length: rows }, (_, i) => `user${i}@crash.test,basic,${i}`)].join(
      '\n',
    );
    const form = new FormData();
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'contacts.csv');
    const accepted = await api.request('POST', '/contacts/import', { raw: form });
    expect(accepted.status).toBe(202);
    const jobId = accepted.body.jobId;

    // Kill hard once some chunks are committed but not all.
    await eventually(
      async () => {
        const res = await api.get(`/contacts/import/${jobId}`);
        return res.body.processed > 0 ? true : undefined;
      },
      30_000,
      20,
    );
    await server.kill('SIGKILL');
    const database = await openDatabase({ databaseUrl: db.env.DATABASE_URL, dataDir: db.env.DATA_DIR! });
    const [atKill] = (await run(database.db, sql`select status, processed from contact_jobs where id = ${jobId}`)).rows;
    await database.close();
    expect(atKill.status).toBe('running');
    expect(atKill.processed).toBeGreaterThan(0);
    expect(atKill.processed).toBeLessThan(rows);

    server = await spawnService(db.env);
    api = client(server.url, secret);
    const beforeRestart = server.output();
    expect(beforeRestart).not.toContain('secret key:');

    const done = await eventually(
      async () => {
        const res = await api.get(`/contacts/import/${jobId}`);
        return res.body.status === 'completed' ? res.body : undefined;
      },
      60_000,
      200,
    );
    expect(done).toMatchObject({ total: rows, processed: rows, failed: 0 });
    expect(done.created + done.updated).toBe(rows);

    const list = await api.get('/contacts?limit=1&search=crash.test');
    expect(list.body.total).toBe(rows);
  });
});
