import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { runContactJob } from '../../src/modules/contacts/jobs.js';
import { createProject } from '../../src/modules/projects/service.js';
import { JobTakenOver } from '../../src/platform/queue.js';
import { type RunningService, startService } from '../../src/start.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { type Client, client } from '../support/server.js';

/**
 * An import run by two runners at once, as when a worker cut off from the database carries on with
 * a job that another has taken over: each chunk is applied once, and the counts are not doubled.
 * The service runs without a worker, so the job is run here, by hand, twice over.
 */

let testDb: TestDatabase;
let service: RunningService;
let api: Client;

beforeAll(async () => {
  testDb = await createTestDatabase();
  service = await startService(loadConfig({ PORT: '0', LOG_LEVEL: 'silent', ...testDb.env }), 'serve');
  api = client(service.url!, (await createProject(service.ctx.db, 'takeover')).secretKey);
});
afterAll(async () => {
  await service?.stop();
  await testDb?.drop();
});

describe('an import with two runners', () => {
  it('applies every chunk once, counts each row once, and tells the runner that lost a chunk to stop', async () => {
    const rows = 3_000;
    const csv = ['email,seq', ...Array.from({ length: rows }, (_, i) => `t${i}@takeover.test,${i}`)].join('\n');
    const form = new FormData();
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'contacts.csv');
    const accepted = await api.request('POST', '/contacts/import', { raw: form });
    expect(accepted.status).toBe(202);
    const jobId = accepted.body.jobId as string;

    const outcomes = await Promise.all(
      [1, 2].map(() =>
        runContactJob(service.ctx, jobId, async () => {}).then(
          () => 'finished',
          (err: unknown) => (err instanceof JobTakenOver ? 'stopped' : err),
        ),
      ),
    );
    expect(
      outcomes.every((o) => o === 'finished' || o === 'stopped'),
      String(outcomes),
    ).toBe(true);
    expect(outcomes).toContain('stopped');
    // What the second runner left unfinished, the first one (or a later run) completes.
    if (!outcomes.includes('finished')) await runContactJob(service.ctx, jobId, async () => {});

    const job = await api.get(`/contacts/import/${jobId}`);
    expect(job.body).toMatchObject({
      status: 'completed',
      total: rows,
      processed: rows,
      created: rows,
      updated: 0,
      failed: 0,
    });
    expect((await api.get('/contacts?limit=1&search=takeover.test')).body.total).toBe(rows);
  });
});
