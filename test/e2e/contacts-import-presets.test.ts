import { describe, expect, it } from 'vitest';
import type { ContactJob } from '../../src/api.js';
import { getContact } from '../support/contacts.js';
import { type Client, eventually, expectErrorEnvelope, type TestProject, useTestServer } from '../support/server.js';

/**
 * Each product's export, written here in that product's documented format, imported through the
 * one import job with its preset; what users rely on: the contacts' data and subscription, and the
 * suppressions of the addresses that product had stopped mailing.
 */
const server = useTestServer();

async function upload(p: TestProject, csv: string, preset?: string) {
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'export.csv');
  const query = preset === undefined ? '' : `?preset=${encodeURIComponent(preset)}`;
  const res = await fetch(`${server.url}/contacts/import${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${p.secretKey}` },
    body: form,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function importFile(p: TestProject, csv: string, preset: string): Promise<ContactJob> {
  const accepted = await upload(p, csv, preset);
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
  return eventually(async () => {
    const res = await p.api.get(`/contacts/import/${accepted.body.jobId}`);
    if (res.status !== 200) throw new Error(`poll answered ${res.status}`);
    return res.body.status === 'completed' || res.body.status === 'failed' ? (res.body as ContactJob) : undefined;
  }, 30_000);
}

async function byEmail(api: Client, email: string): Promise<any> {
  const res = await api.post('/contacts/lookup', { emails: [email] });
  const { contactId } = res.body.data[0];
  return contactId ? getContact(api, contactId) : null;
}

async function suppressed(api: Client, email: string) {
  const res = await api.get(`/suppressions/${encodeURIComponent(email)}`);
  return res.status === 200 ? res.body : null;
}

const MAILCHIMP_COLUMNS =
  '"Email Address","First Name","Last Name",MEMBER_RATING,OPTIN_TIME,OPTIN_IP,CONFIRM_TIME,CONFIRM_IP,LATITUDE,LONGITUDE,GMTOFF,DSTOFF,TIMEZONE,CC,REGION,LAST_CHANGED,LEID,EUID,NOTES,TAGS';

describe('POST /contacts/import?preset=', () => {
  it('refuses a preset it does not know with a 422, and a file without the preset’s email column with a 400', async () => {
    const p = await server.project('preset-bad');
    const unknown = await upload(p, 'email\na@example.com\n', 'sendgrid');
    expectErrorEnvelope(unknown, 422, 'VALIDATION_ERROR');
    expect(JSON.stringify(unknown.body.error)).toMatch(/preset/);

    const wrong = await upload(p, 'name,city\nAda,Oslo\n', 'mailchimp');
    expectErrorEnvelope(wrong, 400, 'INVALID_CSV');
    expect(wrong.body.error.message).toMatch(/Mailchimp/);
  });

  it('mailchimp: the subscribed, unsubscribed and cleaned files of an audience export', async () => {
    const p = await server.project('preset-mailchimp');
    const subscribed = [
      MAILCHIMP_COLUMNS,
      'ada@example.com,Ada,Lovelace,4,"2024-03-05 14:02:11",203.0.113.9,"2024-03-05 14:03:00",203.0.113.9,51.5,-0.1,0,1,Europe/London,GB,ENG,"2024-04-01 09:00:00",111,aaa,,"""VIP"",""Beta testers"""',
      'grace@example.com,Grace,Hopper,5,"2024-02-01 10:00:00",,,,,,,,America/New_York,US,NY,"2024-04-01 09:00:00",112,bbb,Met at a conference,',
    ].join('\n');
    const unsubscribed = [
      `${MAILCHIMP_COLUMNS},UNSUB_TIME,UNSUB_CAMPAIGN_TITLE,UNSUB_CAMPAIGN_ID,UNSUB_REASON,UNSUB_REASON_OTHER`,
      'bo@example.com,Bo,,2,"2023-01-01 00:00:00",,,,,,,,,,,"2024-05-01 08:00:00",113,ccc,,,"2024-05-01 08:00:00",Spring,c1,"No longer interested",',
    ].join('\n');
    const cleaned = [
      `${MAILCHIMP_COLUMNS},CLEAN_TIME,CLEAN_CAMPAIGN_TITLE,CLEAN_CAMPAIGN_ID`,
      'gone@example.com,Gone,,1,"2023-01-01 00:00:00",,,,,,,,,,,"2024-06-01 10:00:00",114,ddd,,"""Old list""","2024-06-01 10:00:00",Summer,c2',
    ].join('\n');

    for (const file of [subscribed, unsubscribed, cleaned]) {
      const job = await importFile(p, file, 'mailchimp');
      expect(job, JSON.stringify(job.errors)).toMatchObject({ status: 'completed', failed: 0 });
    }

    const ada = await byEmail(p.api, 'ada@example.com');
    expect(ada.subscribed).toBe(true);
    expect(ada.data).toEqual({
      firstName: 'Ada',
      lastName: 'Lovelace',
      memberRating: 4,
      subscribedAt: '2024-03-05T14:02:11Z',
      confirmedAt: '2024-03-05T14:03:00Z',
      timezone: 'Europe/London',
      country: 'GB',
      region: 'ENG',
      tags: 'VIP, Beta testers',
    });
    expect((await byEmail(p.api, 'grace@example.com')).data).toMatchObject({ notes: 'Met at a conference' });

    const bo = await byEmail(p.api, 'bo@example.com');
    expect(bo.subscribed).toBe(false);
    expect(bo.data).toMatchObject({
      unsubscribedAt: '2024-05-01T08:00:00Z',
      unsubscribeReason: 'No longer interested',
    });
    expect(await suppressed(p.api, 'bo@example.com')).toBeNull();

    const gone = await byEmail(p.api, 'gone@example.com');
    expect(gone.subscribed).toBe(false);
    expect(gone.data).toMatchObject({ cleanedAt: '2024-06-01T10:00:00Z', tags: 'Old list' });
    expect(await suppressed(p.api, 'gone@example.com')).toMatchObject({
      reason: 'bounce',
      detail: 'Cleaned in Mailchimp',
    });

    // The dates are typed as dates, so segments can ask "subscribed within".
    const fields = await p.api.get('/contacts/fields');
    expect(fields.body.fields).toEqual(
      expect.arrayContaining([
        { field: 'data.subscribedAt', type: 'date', isCustom: true, coverage: expect.any(Number) },
      ]),
    );
  });

  it('listmonk: attributes, status and blocklist of a subscribers export', async () => {
    const p = await server.project('preset-listmonk');
    const csv = [
      'uuid,email,name,attributes,status,created_at,updated_at',
      '6d1e0c4e-1b4b-4a0e-9d0a-1b2c3d4e5f60,ann@example.com,Ann,"{""city"":""Oslo"",""plan"":""pro"",""seats"":3}",enabled,2024-01-02 03:04:05.123456+00,2024-02-01 00:00:00+00',
      '7e2f1d5f-2c5c-4b1f-8e1b-2c3d4e5f6071,off@example.com,Off,{},disabled,2024-01-03 00:00:00+00,2024-01-03 00:00:00+00',
      '8f302e60-3d6d-4c20-9f2c-3d4e5f607182,spam@example.com,Spam,{},blocklisted,2024-01-04 00:00:00+00,2024-01-04 00:00:00+00',
      '9a413f71-4e7e-4d31-a03d-4e5f60718293,broken@example.com,Broken,not json,enabled,2024-01-05 00:00:00+00,2024-01-05 00:00:00+00',
    ].join('\n');
    const job = await importFile(p, csv, 'listmonk');
    expect(job).toMatchObject({ status: 'completed', created: 3, failed: 1 });
    expect(job.errors).toEqual([
      { row: 5, email: 'broken@example.com', message: expect.stringMatching(/JSON object/) },
    ]);

    const ann = await byEmail(p.api, 'ann@example.com');
    expect(ann.subscribed).toBe(true);
    expect(ann.data).toEqual({
      city: 'Oslo',
      plan: 'pro',
      seats: 3,
      name: 'Ann',
      subscribedAt: '2024-01-02T03:04:05.123Z',
    });
    expect((await byEmail(p.api, 'off@example.com')).subscribed).toBe(false);
    expect(await suppressed(p.api, 'off@example.com')).toBeNull();

    const spam = await byEmail(p.api, 'spam@example.com');
    expect(spam.subscribed).toBe(false);
    expect(await suppressed(p.api, 'spam@example.com')).toMatchObject({
      reason: 'manual',
      detail: 'Blocklisted in listmonk',
    });
  });

  it('listmonk: a lists column is kept as data', async () => {
    const p = await server.project('preset-listmonk-lists');
    const job = await importFile(
      p,
      'uuid,email,name,attributes,status,lists\nu1,l@example.com,L,{},enabled,"[""Weekly"",""Product news""]"\n',
      'listmonk',
    );
    expect(job).toMatchObject({ status: 'completed', created: 1 });
    expect((await byEmail(p.api, 'l@example.com')).data).toMatchObject({ lists: 'Weekly, Product news' });
  });

  it('plunk: subscribed and the data object of a contacts export', async () => {
    const p = await server.project('preset-plunk');
    const csv = [
      'id,email,subscribed,data,createdAt,updatedAt',
      'c1,pat@example.com,true,"{""firstName"":""Pat"",""plan"":""pro"",""mrr"":99}",2024-01-01T00:00:00.000Z,2024-01-01T00:00:00.000Z',
      'c2,quit@example.com,false,"{""firstName"":""Quinn""}",2024-01-01T00:00:00.000Z,2024-01-01T00:00:00.000Z',
    ].join('\n');
    const job = await importFile(p, csv, 'plunk');
    expect(job).toMatchObject({ status: 'completed', created: 2, failed: 0 });

    const pat = await byEmail(p.api, 'pat@example.com');
    expect(pat).toMatchObject({ subscribed: true, data: { firstName: 'Pat', plan: 'pro', mrr: 99 } });
    expect(Object.keys(pat.data).sort()).toEqual(['firstName', 'mrr', 'plan']);
    expect(await byEmail(p.api, 'quit@example.com')).toMatchObject({ subscribed: false, data: { firstName: 'Quinn' } });
  });
});
