import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import {
  camelKey,
  importRow,
  isoTime,
  listText,
  presetColumn,
  presetEmailColumn,
  rowState,
} from '../../src/domain/import-presets.js';

/** Rows as the import job reads them: the same parser and options. */
const rows = (csv: string): Record<string, string>[] =>
  parse(csv, { columns: true, skip_empty_lines: true, bom: true, relax_column_count: true, trim: false });

const MAILCHIMP_HEADER =
  '"Email Address","First Name","Last Name",EMAIL_TYPE,MEMBER_RATING,OPTIN_TIME,OPTIN_IP,CONFIRM_TIME,CONFIRM_IP,LATITUDE,LONGITUDE,GMTOFF,DSTOFF,TIMEZONE,CC,REGION,LAST_CHANGED,LEID,EUID,NOTES,TAGS';

describe('cells', () => {
  it('reads timestamps as UTC ISO dates, and leaves other text alone', () => {
    expect(isoTime('2024-03-05 14:02:11')).toBe('2024-03-05T14:02:11Z');
    expect(isoTime('2024-03-05 14:02:11.123456+00')).toBe('2024-03-05T14:02:11.123Z');
    expect(isoTime('2024-03-05T16:02:11+02:00')).toBe('2024-03-05T14:02:11Z');
    expect(isoTime('next tuesday')).toBe('next tuesday');
  });

  it('reads lists in the shapes the exports write them', () => {
    expect(listText('"VIP","Early adopter"')).toBe('VIP, Early adopter');
    expect(listText('["Newsletter",{"id":3,"name":"Beta"}]')).toBe('Newsletter, Beta');
    expect(listText('a, b,,c')).toBe('a, b, c');
  });

  it('makes data keys of merge field labels', () => {
    expect(camelKey('First Name')).toBe('firstName');
    expect(camelKey('PHONE')).toBe('phone');
    expect(camelKey('Favourite colour?')).toBe('favouriteColour');
    expect(camelKey('  ')).toBe('');
  });
});

describe('Mailchimp', () => {
  it('maps a subscribed member: merge fields, rating, opt-in time, tags; drops bookkeeping', () => {
    const [row] = rows(
      `${MAILCHIMP_HEADER}\n` +
        'Ada@Example.com,Ada,Lovelace,html,4,"2024-03-05 14:02:11",203.0.113.9,"2024-03-05 14:03:00",203.0.113.9,51.5,-0.1,0,1,Europe/London,GB,ENG,"2024-04-01 09:00:00",123,abc,,"""VIP"",""Beta testers"""\n',
    );
    const parsed = importRow('mailchimp', row!);
    expect(parsed).toEqual({
      ok: true,
      email: 'ada@example.com',
      subscribed: true,
      data: {
        firstName: 'Ada',
        lastName: 'Lovelace',
        memberRating: 4,
        subscribedAt: '2024-03-05T14:02:11Z',
        confirmedAt: '2024-03-05T14:03:00Z',
        timezone: 'Europe/London',
        country: 'GB',
        region: 'ENG',
        tags: 'VIP, Beta testers',
      },
    });
    expect(rowState(parsed as never)).toBe('subscribed');
  });

  it('reads the unsubscribed and cleaned files by their columns', () => {
    const [unsub] = rows(
      `${MAILCHIMP_HEADER},UNSUB_TIME,UNSUB_CAMPAIGN_TITLE,UNSUB_CAMPAIGN_ID,UNSUB_REASON,UNSUB_REASON_OTHER\n` +
        'bo@example.com,Bo,,html,2,,,,,,,,,,,,,,,,,"2024-05-01 08:00:00",Spring,c1,"No longer interested",\n',
    );
    expect(importRow('mailchimp', unsub!)).toEqual({
      ok: true,
      email: 'bo@example.com',
      subscribed: false,
      data: {
        firstName: 'Bo',
        memberRating: 2,
        unsubscribedAt: '2024-05-01T08:00:00Z',
        unsubscribeReason: 'No longer interested',
      },
    });
    const [cleaned] = rows(
      `${MAILCHIMP_HEADER},CLEAN_TIME,CLEAN_CAMPAIGN_TITLE,CLEAN_CAMPAIGN_ID\n` +
        'gone@example.com,,,html,1,,,,,,,,,,,,,,,,,"2024-06-01 10:00:00",Summer,c2\n',
    );
    const parsed = importRow('mailchimp', cleaned!);
    expect(parsed).toEqual({
      ok: true,
      email: 'gone@example.com',
      subscribed: false,
      data: { memberRating: 1, cleanedAt: '2024-06-01T10:00:00Z' },
      suppress: { reason: 'bounce', detail: 'Cleaned in Mailchimp' },
    });
    expect(rowState(parsed as never)).toBe('suppressed');
  });

  it('takes a STATUS column over the file: pending is not subscribed', () => {
    const [pending, cleaned, odd] = rows(
      '"Email Address",STATUS\np@example.com,pending\nc@example.com,cleaned\nx@example.com,maybe\n',
    );
    expect(importRow('mailchimp', pending!)).toMatchObject({ ok: true, subscribed: false });
    expect(importRow('mailchimp', pending!)).not.toHaveProperty('suppress');
    expect(importRow('mailchimp', cleaned!)).toMatchObject({ suppress: { reason: 'bounce' } });
    expect(importRow('mailchimp', odd!)).toMatchObject({ ok: false, message: expect.stringContaining('"maybe"') });
  });

  it('says what each column becomes', () => {
    expect(presetEmailColumn('mailchimp', ['First Name', 'Email Address'])).toBe('Email Address');
    expect(presetColumn('mailchimp', 'First Name')).toEqual({ kind: 'data', key: 'firstName' });
    expect(presetColumn('mailchimp', 'LEID')).toMatchObject({ kind: 'ignored' });
    expect(presetColumn('mailchimp', 'CLEAN_TIME')).toMatchObject({ kind: 'state' });
  });
});

describe('listmonk', () => {
  const header = 'uuid,email,name,attributes,status,created_at,updated_at';

  it('spreads attributes into data and reads the status', () => {
    const [enabled, blocked, disabled] = rows(
      `${header}\n` +
        'a1b2,ann@example.com,Ann,"{""city"":""Oslo"",""plan"":""pro"",""seats"":3}",enabled,2024-01-02 03:04:05.123456+00,2024-02-01 00:00:00+00\n' +
        'c3d4,spam@example.com,Spam,{},blocklisted,2024-01-03 00:00:00+00,2024-01-03 00:00:00+00\n' +
        'e5f6,off@example.com,,,disabled,,\n',
    );
    expect(importRow('listmonk', enabled!)).toEqual({
      ok: true,
      email: 'ann@example.com',
      subscribed: true,
      data: { city: 'Oslo', plan: 'pro', seats: 3, name: 'Ann', subscribedAt: '2024-01-02T03:04:05.123Z' },
    });
    const b = importRow('listmonk', blocked!);
    expect(b).toMatchObject({
      ok: true,
      subscribed: false,
      suppress: { reason: 'manual', detail: 'Blocklisted in listmonk' },
    });
    expect(rowState(b as never)).toBe('suppressed');
    expect(importRow('listmonk', disabled!)).toEqual({
      ok: true,
      email: 'off@example.com',
      subscribed: false,
      data: {},
    });
  });

  it('keeps a lists column as text and refuses attributes that are not an object', () => {
    const [withLists, bad] = rows(
      'email,name,attributes,status,lists\nl@example.com,L,{},enabled,"Weekly, Product news"\nb@example.com,B,[1],enabled,\n',
    );
    expect(importRow('listmonk', withLists!)).toMatchObject({ data: { lists: 'Weekly, Product news' } });
    expect(importRow('listmonk', bad!)).toMatchObject({ ok: false, message: expect.stringContaining('JSON object') });
  });
});

describe('Plunk', () => {
  it('maps subscribed and the data object; ids and timestamps are dropped', () => {
    const [sub, unsub] = rows(
      'id,email,subscribed,data,createdAt,updatedAt\n' +
        'c1,pat@example.com,true,"{""firstName"":""Pat"",""mrr"":99}",2024-01-01T00:00:00.000Z,2024-01-01T00:00:00.000Z\n' +
        'c2,quit@example.com,false,,2024-01-01T00:00:00.000Z,2024-01-01T00:00:00.000Z\n',
    );
    expect(importRow('plunk', sub!)).toEqual({
      ok: true,
      email: 'pat@example.com',
      subscribed: true,
      data: { firstName: 'Pat', mrr: 99 },
    });
    const quit = importRow('plunk', unsub!);
    expect(quit).toEqual({ ok: true, email: 'quit@example.com', subscribed: false, data: {} });
    expect(rowState(quit as never)).toBe('unsubscribed');
    expect(presetColumn('plunk', 'id')).toMatchObject({ kind: 'ignored' });
    expect(importRow('plunk', { email: 'x@example.com', data: '"text"' })).toMatchObject({
      ok: false,
      email: 'x@example.com',
      message: expect.stringContaining('data must be a JSON object'),
    });
  });
});

describe('without a preset', () => {
  it('reads a Postbox CSV row', () => {
    const r = importRow(null, { email: 'a@b.co', plan: 'pro' });
    expect(r).toEqual({ ok: true, email: 'a@b.co', subscribed: undefined, data: { plan: 'pro' } });
    expect(rowState(r as never)).toBe('unstated');
  });
});
