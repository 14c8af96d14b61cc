import { beforeAll, describe, expect, it } from 'vitest';
import type { ContactJob } from '../../src/api.js';
import { createContact, getContact } from '../support/contacts.js';
import { UUID } from '../support/sending.js';
import { type Client, eventually, type TestProject, useTestServer } from '../support/server.js';

const server = useTestServer();

const JOB_KEYS = [
  'created',
  'createdAt',
  'errors',
  'failed',
  'finishedAt',
  'id',
  'kind',
  'processed',
  'progress',
  'startedAt',
  'status',
  'total',
  'updated',
];
const randomId = (): string => crypto.randomUUID();

async function byEmail(api: Client, email: string): Promise<any> {
  const res = await api.post('/contacts/lookup', { emails: [email] });
  expect(res.status).toBe(200);
  const { contactId } = res.body.data[0];
  return contactId ? getContact(api, contactId) : null;
}

async function eventNames(api: Client, contactId: string): Promise<string[]> {
  const res = await api.get(`/events/contact/${contactId}?limit=100`);
  expect(res.status).toBe(200);
  return res.body.data.map((e: { name: string }) => e.name).sort();
}

async function upload(p: TestProject, content: BlobPart, field = 'file') {
  const form = new FormData();
  form.append(field, new Blob([content], { type: 'text/csv' }), 'contacts.csv');
  const res = await fetch(`${server.url}/contacts/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${p.secretKey}` },
    body: form,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Polls a job until it finishes; the job must stay visible (200) the whole time. */
async function finished(api: Client, path: string): Promise<ContactJob> {
  return eventually(async () => {
    const res = await api.get(path);
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body.status === 'completed' || res.body.status === 'failed' ? (res.body as ContactJob) : undefined;
  }, 30_000);
}

function expectAccepted(res: { status: number; body: any }, kind: string, total: number) {
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  expect(Object.keys(res.body).sort()).toEqual([...JOB_KEYS, 'jobId'].sort());
  expect(res.body.jobId).toMatch(UUID);
  expect(res.body.id).toBe(res.body.jobId);
  expect(res.body).toMatchObject({
    kind,
    status: 'queued',
    total,
    processed: 0,
    created: 0,
    updated: 0,
    failed: 0,
    errors: [],
  });
  return res.body.jobId as string;
}

function expectValidationError(res: { status: number; body: any }, field: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', statusCode: 422 } });
  expect(res.body.error.errors.map((e: any) => e.field)).toContain(field);
}

describe('POST /contacts/import', () => {
  it('imports a CSV: counts, row errors, data coercion, updates of existing contacts', async () => {
    const p = await server.project('import');
    const existing = await createContact(p.api, {
      email: 'existing@import.test',
      subscribed: false,
      data: { first_name: 'Old', keep: 'yes' },
    });
    const csv = [
      'email,first_name,age,zip,price,subscribed,active',
      'alice@import.test,Alice,42,02134,1.50,true,true',
      'BOB@Import.Test,Bob,007,,-3.25,no,false',
      'not-an-email,X,1,,,,',
      ',Nobody,2,,,,',
      'carol@import.test,Carol,5,,,maybe,',
      'existing@import.test,Updated,55,,,,',
    ].join('\n');

    const accepted = await upload(p, csv);
    const jobId = expectAccepted(accepted, 'import', 0);
    const job = await finished(p.api, `/contacts/import/${jobId}`);

    expect(Object.keys(job).sort()).toEqual(JOB_KEYS);
    expect(job).toMatchObject({ id: jobId, kind: 'import', status: 'completed', total: 6, processed: 6, progress: 1 });
    expect({ created: job.created, updated: job.updated, failed: job.failed }).toEqual({
      created: 2,
      updated: 1,
      failed: 3,
    });
    // The header is row 1, as a spreadsheet numbers it.
    expect(job.errors.map((e) => e.row)).toEqual([4, 5, 6]);
    expect(job.errors[0]).toMatchObject({ row: 4, email: 'not-an-email' });
    expect(job.errors[0]!.message).toMatch(/not a valid email/);
    expect(job.errors[1]!.message).toMatch(/email is empty/);
    expect(job.errors[2]!.message).toMatch(/subscribed/);
    expect(job.errors[2]!.message).toMatch(/maybe/);
    expect(job.startedAt).not.toBeNull();
    expect(job.finishedAt).not.toBeNull();

    const alice = await byEmail(p.api, 'alice@import.test');
    expect(alice).toMatchObject({ subscribed: true, snoozedUntil: null });
    expect(alice.data).toEqual({ first_name: 'Alice', age: 42, zip: '02134', price: '1.50', active: true });

    const bob = await byEmail(p.api, 'bob@import.test');
    expect(bob.subscribed).toBe(false);
    expect(bob.data).toEqual({ first_name: 'Bob', age: '007', price: -3.25, active: false });

    expect(await byEmail(p.api, 'carol@import.test')).toBeNull();

    const updated = await getContact(p.api, existing.id);
    expect(updated.subscribed).toBe(false);
    expect(updated.data).toEqual({ first_name: 'Updated', keep: 'yes', age: 55 });

    const list = await p.api.get('/contacts');
    expect(list.body.total).toBe(3);
  });

  it('finds the email column whatever its case, behind a byte-order mark', async () => {
    const p = await server.project('import-bom');
    const jobId = expectAccepted(await upload(p, '\ufeffName,EMAIL\nDee,dee@import.test\n'), 'import', 0);
    const job = await finished(p.api, `/contacts/import/${jobId}`);
    expect(job).toMatchObject({ status: 'completed', created: 1, updated: 0, failed: 0, errors: [] });
    expect((await byEmail(p.api, 'dee@import.test')).data).toEqual({ Name: 'Dee' });
  });

  it('accepts a file larger than the JSON body limit but under 5 MB', async () => {
    const p = await server.project('import-2mb');
    const note = 'n'.repeat(60_000);
    const rows = Array.from({ length: 35 }, (_, i) => `big-${i}@import.test,${note}`);
    const csv = ['email,note', ...rows].join('\n');
    expect(csv.length).toBeGreaterThan(2 * 1024 * 1024);
    const jobId = expectAccepted(await upload(p, csv), 'import', 0);
    const job = await finished(p.api, `/contacts/import/${jobId}`);
    expect(job).toMatchObject({ status: 'completed', created: 35, failed: 0 });
    expect((await byEmail(p.api, 'big-34@import.test')).data.note).toHaveLength(60_000);
  });

  it('refuses a CSV without an email column with 400 and imports nothing', async () => {
    const p = await server.project('import-no-email');
    const res = await upload(p, 'name,mail\nAnn,ann@import.test\n');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { statusCode: 400 } });
    expect((await p.api.get('/contacts')).body.total).toBe(0);
  });

  it('refuses a file over 5 MB with 413 and imports nothing', async () => {
    const p = await server.project('import-too-big');
    const header = 'email,pad\n';
    const row = `huge@import.test,${'p'.repeat(1000)}\n`;
    const csv = header + row.repeat(Math.ceil((5 * 1024 * 1024) / row.length) + 10);
    expect(csv.length).toBeGreaterThan(5 * 1024 * 1024);
    const res = await upload(p, csv);
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ success: false, error: { statusCode: 413 } });
    expect((await p.api.get('/contacts')).body.total).toBe(0);
  });

  it('holds imported rows to the API’s data limits: a row with too many keys fails, the others import', async () => {
    const p = await server.project('import-data-limits');
    const keys = Array.from({ length: 600 }, (_, i) => `k${i}`);
    const csv = `email,${keys.join(',')}\nwide@import.test,${keys.map(() => '1').join(',')}\nnarrow@import.test${','.repeat(keys.length)}\n`;
    const res = await upload(p, csv);
    expect(res.status).toBe(202);
    const job = await finished(p.api, `/contacts/import/${res.body.jobId}`);
    expect(job).toMatchObject({ status: 'completed', created: 1, failed: 1 });
    expect(job.errors).toEqual([{ row: 2, email: 'wide@import.test', message: 'data: At most 500 keys' }]);
    const contacts = (await p.api.get('/contacts')).body.data.map((c: { email: string }) => c.email);
    expect(contacts).toEqual(['narrow@import.test']);
  });

  it('fails the job, saying why, when the file stops parsing after its header', async () => {
    const p = await server.project('import-parse-error');
    // An unclosed quote: the header reads, the rows do not.
    const res = await upload(p, 'email,name\nok@import.test,"Ada\nbad@import.test,Bob\n');
    expect(res.status).toBe(202);
    const job = await finished(p.api, `/contacts/import/${res.body.jobId}`);
    expect(job.status).toBe('failed');
    expect(job.errors[0]!.message).toMatch(/^The file is not valid CSV: /);
    expect(job.finishedAt).not.toBeNull();
    expect((await p.api.get('/contacts')).body.total).toBe(0);
  });

  it('answers 400 for a multipart body cut short, and imports nothing', async () => {
    const p = await server.project('import-truncated');
    const boundary = 'pbx-boundary';
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="c.csv"\r\nContent-Type: text/csv\r\n\r\nemail\r\ncut@import.test\r\n`;
    const res = await fetch(`${server.url}/contacts/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.secretKey}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: 'INVALID_UPLOAD', statusCode: 400 });
    expect((await p.api.get('/contacts')).body.total).toBe(0);
  });

  it('refuses a body that is not multipart with 415', async () => {
    const p = await server.project('import-415');
    const json = await p.api.post('/contacts/import', { file: 'email\na@import.test\n' });
    expect(json.status).toBe(415);
    expect(json.body).toMatchObject({ success: false, error: { statusCode: 415 } });
    const raw = await p.api.request('POST', '/contacts/import', {
      raw: 'email\na@import.test\n',
      headers: { 'content-type': 'text/csv' },
    });
    expect(raw.status).toBe(415);
    expect((await p.api.get('/contacts')).body.total).toBe(0);
  });

  it('answers 400 to a multipart upload without a file', async () => {
    const p = await server.project('import-no-file');
    const form = new FormData();
    form.append('note', 'no file here');
    const res = await fetch(`${server.url}/contacts/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.secretKey}` },
      body: form,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ success: false, error: { statusCode: 400 } });
  });

  it('requires the secret key to upload', async () => {
    const p = await server.project('import-auth');
    const form = new FormData();
    form.append('file', new Blob(['email\nz@import.test\n']), 'c.csv');
    const res = await fetch(`${server.url}/contacts/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.publicKey}` },
      body: form,
    });
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe('INVALID_API_KEY');
  });

  it("hides another project's import job and keeps import and bulk jobs apart", async () => {
    const owner = await server.project('import-owner');
    const stranger = await server.project('import-stranger');
    const jobId = expectAccepted(await upload(owner, 'email\nowned@import.test\n'), 'import', 0);
    await finished(owner.api, `/contacts/import/${jobId}`);

    const foreign = await stranger.api.get(`/contacts/import/${jobId}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND', statusCode: 404 } });
    expect((await owner.api.get(`/contacts/bulk/${jobId}`)).status).toBe(404);
    expect((await owner.api.get(`/contacts/import/${randomId()}`)).status).toBe(404);
    expectValidationError(await owner.api.get('/contacts/import/not-a-uuid'), 'jobId');
  });
});

describe('bulk subscribe, unsubscribe, delete', () => {
  let p: TestProject;
  let other: TestProject;

  beforeAll(async () => {
    p = await server.project('bulk');
    other = await server.project('bulk-other');
  });

  it('unsubscribes existing contacts, counts unknown and foreign ids as failed, emits events only on flips', async () => {
    const on = await createContact(p.api, { email: 'on@bulk.test' });
    const off = await createContact(p.api, { email: 'off@bulk.test', subscribed: false });
    const foreign = await createContact(other.api, { email: 'foreign@bulk.test' });
    const unknown = randomId();

    const res = await p.api.post('/contacts/bulk-unsubscribe', {
      contactIds: [on.id, off.id, unknown, foreign.id, on.id],
    });
    const jobId = expectAccepted(res, 'unsubscribe', 4);
    const job = await finished(p.api, `/contacts/bulk/${jobId}`);
    expect(job).toMatchObject({
      kind: 'unsubscribe',
      status: 'completed',
      total: 4,
      processed: 4,
      progress: 1,
      updated: 2,
      failed: 2,
      created: 0,
    });
    expect(job.errors.map((e) => e.id).sort()).toEqual([unknown, foreign.id].sort());
    expect(job.errors.every((e) => /not found/i.test(e.message))).toBe(true);

    expect((await getContact(p.api, on.id)).subscribed).toBe(false);
    expect((await getContact(p.api, off.id)).subscribed).toBe(false);
    expect(await eventNames(p.api, on.id)).toEqual(['contact.unsubscribed']);
    expect(await eventNames(p.api, off.id)).toEqual([]);

    expect((await getContact(other.api, foreign.id)).subscribed).toBe(true);
    expect(await eventNames(other.api, foreign.id)).toEqual([]);
  });

  it('subscribes contacts, emitting contact.subscribed only for those that were unsubscribed', async () => {
    const a = await createContact(p.api, { email: 'sub-a@bulk.test', subscribed: false });
    const b = await createContact(p.api, { email: 'sub-b@bulk.test', subscribed: false });
    const already = await createContact(p.api, { email: 'sub-c@bulk.test' });
    const foreign = await createContact(other.api, { email: 'sub-foreign@bulk.test', subscribed: false });

    const jobId = expectAccepted(
      await p.api.post('/contacts/bulk-subscribe', { contactIds: [a.id, b.id, already.id, foreign.id] }),
      'subscribe',
      4,
    );
    const job = await finished(p.api, `/contacts/bulk/${jobId}`);
    expect(job).toMatchObject({ status: 'completed', updated: 3, failed: 1 });
    expect(job.errors).toEqual([{ id: foreign.id, message: expect.any(String) }]);

    for (const c of [a, b, already]) expect((await getContact(p.api, c.id)).subscribed).toBe(true);
    expect(await eventNames(p.api, a.id)).toEqual(['contact.subscribed']);
    expect(await eventNames(p.api, b.id)).toEqual(['contact.subscribed']);
    expect(await eventNames(p.api, already.id)).toEqual([]);
    expect((await getContact(other.api, foreign.id)).subscribed).toBe(false);
    expect(await eventNames(other.api, foreign.id)).toEqual([]);
  });

  it('deletes contacts of this project only', async () => {
    const x = await createContact(p.api, { email: 'del-x@bulk.test' });
    const y = await createContact(p.api, { email: 'del-y@bulk.test' });
    const survivor = await createContact(p.api, { email: 'del-keep@bulk.test' });
    const foreign = await createContact(other.api, { email: 'del-foreign@bulk.test' });

    const jobId = expectAccepted(
      await p.api.post('/contacts/bulk-delete', { contactIds: [x.id, y.id, foreign.id, randomId()] }),
      'delete',
      4,
    );
    const job = await finished(p.api, `/contacts/bulk/${jobId}`);
    expect(job).toMatchObject({ kind: 'delete', status: 'completed', updated: 2, failed: 2 });

    expect((await p.api.get(`/contacts/${x.id}`)).status).toBe(404);
    expect((await p.api.get(`/contacts/${y.id}`)).status).toBe(404);
    expect((await getContact(p.api, survivor.id)).email).toBe('del-keep@bulk.test');
    expect((await getContact(other.api, foreign.id)).email).toBe('del-foreign@bulk.test');
  });

  it('accepts 1,000 ids and rejects 1,001 with 422', async () => {
    const ids = Array.from({ length: 1001 }, randomId);
    const tooMany = await p.api.post('/contacts/bulk-delete', { contactIds: ids });
    expectValidationError(tooMany, 'contactIds');
    expect(tooMany.body.error.errors.find((e: any) => e.field === 'contactIds').code).toBe('too_big');

    const jobId = expectAccepted(
      await p.api.post('/contacts/bulk-delete', { contactIds: ids.slice(0, 1000) }),
      'delete',
      1000,
    );
    const job = await finished(p.api, `/contacts/bulk/${jobId}`);
    expect(job).toMatchObject({ status: 'completed', total: 1000, processed: 1000, updated: 0, failed: 1000 });
    expect(job.errors.length).toBeGreaterThan(0);
    const sent = new Set(ids);
    expect(job.errors.every((e) => e.id !== undefined && sent.has(e.id))).toBe(true);
  });

  it('rejects non-uuid ids, an empty list and a missing list with 422 on every bulk route', async () => {
    const keep = await createContact(p.api, { email: 'invalid-ids@bulk.test' });
    for (const action of ['subscribe', 'unsubscribe', 'delete']) {
      expectValidationError(
        await p.api.post(`/contacts/bulk-${action}`, { contactIds: [keep.id, 'not-a-uuid'] }),
        'contactIds.1',
      );
      expectValidationError(await p.api.post(`/contacts/bulk-${action}`, { contactIds: [] }), 'contactIds');
      expectValidationError(await p.api.post(`/contacts/bulk-${action}`, {}), 'contactIds');
    }
    expect((await getContact(p.api, keep.id)).subscribed).toBe(true);
  });

  it("hides another project's bulk job", async () => {
    const c = await createContact(p.api, { email: 'job-owner@bulk.test' });
    const jobId = expectAccepted(
      await p.api.post('/contacts/bulk-unsubscribe', { contactIds: [c.id] }),
      'unsubscribe',
      1,
    );
    await finished(p.api, `/contacts/bulk/${jobId}`);
    const foreign = await other.api.get(`/contacts/bulk/${jobId}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('NOT_FOUND');
    expect((await p.api.get(`/contacts/import/${jobId}`)).status).toBe(404);
    expect((await p.api.get(`/contacts/bulk/${randomId()}`)).status).toBe(404);
  });
});

describe('snooze end', () => {
  it('resubscribes a snoozed contact when the snooze passes, emitting contact.subscribed', async () => {
    const p = await server.project('snooze');
    const snoozed = await createContact(p.api, { email: 'snoozed@snooze.test', data: { keep: 1 } });
    const cancelled = await createContact(p.api, { email: 'cancelled@snooze.test' });
    // The cancelled snooze ends first, so its job has run by the time the other one has.
    const cancelledUntil = Date.now() + 1_500;
    const early = await p.api.patch(`/contacts/${cancelled.id}`, {
      snoozedUntil: new Date(cancelledUntil).toISOString(),
    });
    expect(early.status).toBe(200);
    const off = await p.api.patch(`/contacts/${cancelled.id}`, { subscribed: false });
    expect(off.body).toMatchObject({ subscribed: false, snoozedUntil: null });

    const until = new Date(Math.max(Date.now() + 2_000, cancelledUntil + 500)).toISOString();
    const res = await p.api.patch(`/contacts/${snoozed.id}`, { snoozedUntil: until });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ subscribed: false, snoozedUntil: until });

    const resumed = await eventually(async () => {
      const c = await getContact(p.api, snoozed.id);
      return c.subscribed ? c : undefined;
    }, 20_000);
    expect(resumed.snoozedUntil).toBeNull();
    expect(resumed.data).toEqual({ keep: 1 });

    const events = await p.api.get(`/events/contact/${snoozed.id}?limit=100`);
    expect(events.body.data.map((e: any) => e.name).sort()).toEqual(['contact.subscribed', 'contact.unsubscribed']);
    const byName = await p.api.get('/events?name=contact.subscribed');
    expect(byName.body.data.map((e: any) => e.contactId)).toEqual([snoozed.id]);

    expect(await getContact(p.api, cancelled.id)).toMatchObject({ subscribed: false, snoozedUntil: null });
    expect(await eventNames(p.api, cancelled.id)).toEqual(['contact.unsubscribed']);
  });
});
