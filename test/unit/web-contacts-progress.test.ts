import { describe, expect, it } from 'vitest';
import type { ContactJob } from '../../src/api.js';
import { isFinished, jobPercent, jobProgressText } from '../../web/src/pages/contacts/job-progress.js';

const job = (over: Partial<ContactJob>): ContactJob => ({
  id: '00000000-0000-4000-8000-000000000000',
  kind: 'import',
  status: 'running',
  total: 0,
  processed: 0,
  progress: 0,
  created: 0,
  updated: 0,
  failed: 0,
  errors: [],
  createdAt: '2025-01-01T00:00:00.000Z',
  startedAt: null,
  finishedAt: null,
  ...over,
});

describe('job progress in words', () => {
  it('says where an import is, from queued to done', () => {
    expect(jobProgressText(job({ status: 'queued' }))).toBe('Waiting to start…');
    expect(jobProgressText(job({}))).toBe('Reading the file…');
    expect(jobProgressText(job({ total: 1200, processed: 500, progress: 0.417 }))).toBe('41% · 500 of 1,200 rows');
    expect(
      jobProgressText(
        job({ status: 'completed', total: 202, processed: 202, progress: 1, created: 195, updated: 5, failed: 2 }),
      ),
    ).toBe('Done: 202 rows, 195 new, 5 updated, 2 failed');
    expect(jobProgressText(job({ status: 'completed', total: 1, processed: 1, progress: 1, created: 1 }))).toBe(
      'Done: 1 row, 1 new, 0 updated',
    );
    expect(
      jobProgressText(job({ status: 'failed', errors: [{ message: 'The file is not valid CSV: Quote Not Closed' }] })),
    ).toBe('Stopped: The file is not valid CSV: Quote Not Closed');
  });

  it('says what a bulk job did', () => {
    const bulk = { status: 'completed' as const, total: 3, processed: 3, progress: 1 };
    expect(jobProgressText(job({ ...bulk, kind: 'unsubscribe', updated: 3 }))).toBe('Unsubscribed 3 contacts');
    expect(jobProgressText(job({ ...bulk, kind: 'delete', updated: 2, failed: 1 }))).toBe(
      'Deleted 2 contacts, 1 failed',
    );
    expect(jobProgressText(job({ kind: 'subscribe', total: 1, processed: 0 }))).toBe('0% · 0 of 1 contact');
    expect(jobProgressText(job({ kind: 'subscribe', total: 0 }))).toBe('Starting…');
  });

  it('reaches 100% only when the job has ended well', () => {
    expect(jobPercent({ status: 'running', progress: 1 })).toBe(99);
    expect(jobPercent({ status: 'running', progress: 0.456 })).toBe(45);
    expect(jobPercent({ status: 'completed', progress: 1 })).toBe(100);
    expect(jobPercent({ status: 'completed', progress: 0 })).toBe(100);
    expect(isFinished({ status: 'failed' })).toBe(true);
    expect(isFinished({ status: 'running' })).toBe(false);
  });
});
