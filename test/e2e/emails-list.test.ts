import { beforeAll, describe, expect, it } from 'vitest';
import type { EmailRecord } from '../../src/api.js';
import { recordWhen, sendOk, UNKNOWN_ID } from '../support/sending.js';
import { expectBody, expectErrorEnvelope, type TestProject, useTestServer } from '../support/server.js';

/** `GET /emails` and `GET /emails/{id}/content`, on mail captured to the outbox (no relay). */

interface EmailPage {
  data: EmailRecord[];
  cursor: string | null;
  hasMore: boolean;
}

const server = useTestServer();
let project: TestProject;
let other: TestProject;
const sent: string[] = [];

const send = async (to: string, subject: string, type = 'TRANSACTIONAL') =>
  (await sendOk(project.api, { to, from: 'app@list.test', subject, body: `<p>${subject}</p>`, type })).emails[0]!.email;

beforeAll(async () => {
  project = await server.project('emails-list');
  other = await server.project('emails-list-other');
  for (let i = 1; i <= 5; i++) sent.push(await send(`reader${i}@example.com`, `Letter ${i}`));
  // Marketing mail to a contact that never subscribed (a send creates it unsubscribed) is kept as skipped.
  const marketing = await expectBody(
    project.api.post('/templates', {
      name: 'news',
      subject: 'Letter 6',
      body: '<p>News</p>',
      from: 'app@list.test',
      type: 'MARKETING',
    }),
    201,
  );
  sent.push((await sendOk(project.api, { to: 'quiet@example.com', template: marketing.id })).emails[0]!.email);
  for (const id of sent.slice(0, 5)) await recordWhen(project.api, id, (r) => r.status === 'sent');
});

describe('GET /emails', () => {
  it('lists the project’s emails newest first, a page at a time, each page following the last', async () => {
    const first = await expectBody<EmailPage>(project.api.get('/emails?limit=4'));
    expect(first.data.map((e) => e.subject)).toEqual(['Letter 6', 'Letter 5', 'Letter 4', 'Letter 3']);
    expect(first.hasMore).toBe(true);
    expect(first.data[0]).toMatchObject({ id: sent[5], to: 'quiet@example.com', status: 'skipped' });
    const second = await expectBody<EmailPage>(project.api.get(`/emails?limit=4&cursor=${first.cursor}`));
    expect(second.data.map((e) => e.subject)).toEqual(['Letter 2', 'Letter 1']);
    expect(second).toMatchObject({ hasMore: false, cursor: null });
    expect((await expectBody<EmailPage>(other.api.get('/emails'))).data).toEqual([]);
  });

  it('narrows by status and by recipient', async () => {
    const skipped = await expectBody<EmailPage>(project.api.get('/emails?status=skipped'));
    expect(skipped.data.map((e) => e.id)).toEqual([sent[5]]);
    const sentOnes = await expectBody<EmailPage>(project.api.get('/emails?status=sent'));
    expect(sentOnes.data).toHaveLength(5);
    const toReader = await expectBody<EmailPage>(project.api.get('/emails?to=reader3@example.com'));
    expect(toReader.data.map((e) => e.subject)).toEqual(['Letter 3']);
    expect((await expectBody<EmailPage>(project.api.get('/emails?to=nobody@example.com'))).data).toEqual([]);
    expect((await expectBody<EmailPage>(project.api.get(`/emails?campaignId=${UNKNOWN_ID}`))).data).toEqual([]);
  });

  it('answers the emails of a list of ids, of its own project only', async () => {
    const wanted = await expectBody<EmailPage>(project.api.get(`/emails?ids=${sent[0]},${sent[3]},${UNKNOWN_ID}`));
    expect(wanted.data.map((e) => e.subject)).toEqual(['Letter 4', 'Letter 1']);
    const repeated = await expectBody<EmailPage>(project.api.get(`/emails?ids=${sent[1]}&ids=${sent[2]}`));
    expect(repeated.data.map((e) => e.id).sort()).toEqual([sent[1], sent[2]].sort());
    expect((await expectBody<EmailPage>(other.api.get(`/emails?ids=${sent[0]}`))).data).toEqual([]);
  });

  it('refuses an unknown status, a malformed recipient or id and a forged cursor with 422', async () => {
    const tooMany = Array.from({ length: 101 }, () => UNKNOWN_ID).join(',');
    for (const query of [
      'status=lost',
      'to=not-an-address',
      'campaignId=x',
      'ids=x',
      'ids=',
      `ids=${tooMany}`,
      `cursor=${btoa('[1,2,3]')}`,
    ]) {
      expectErrorEnvelope(await project.api.get(`/emails?${query}`), 422, 'VALIDATION_ERROR');
    }
  });
});

describe('GET /emails/{id}/content', () => {
  it('answers the stored HTML and headers; 404 for another project’s email', async () => {
    const content = await expectBody(project.api.get(`/emails/${sent[0]}/content`));
    expect(content.html).toContain('<p>Letter 1</p>');
    expect(content.headers).toEqual({});
    const marketing = await expectBody(project.api.get(`/emails/${sent[5]}/content`));
    expect(marketing.headers['List-Unsubscribe']).toMatch(/^<http/);
    expectErrorEnvelope(await other.api.get(`/emails/${sent[0]}/content`), 404, 'NOT_FOUND');
  });
});
