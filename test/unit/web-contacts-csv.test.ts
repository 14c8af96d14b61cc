import { describe, expect, it } from 'vitest';
import { csvRowToContact, coerceCell as serverCoerce } from '../../src/domain/csv-contacts.js';
import {
  CsvSyntaxError,
  cellType,
  checkImportFile,
  coerceCell,
  distinctEmails,
  importMapping,
  importOutcome,
  MAX_IMPORT_BYTES,
  previewCsv,
  readCsv,
  roleText,
  rowProblem,
} from '../../web/src/pages/contacts/csv-preview.js';

const records = (text: string) => {
  const out: string[][] = [];
  readCsv(text, (cells) => out.push(cells));
  return out;
};

describe('reading CSV in the browser', () => {
  it('reads quoted cells, doubled quotes, line breaks in quotes, CRLF and a BOM', () => {
    const text = '\uFEFFemail,note\r\n"a@x.io","says ""hi"", twice"\r\nb@x.io,"two\nlines"\r\n';
    expect(records(text)).toEqual([
      ['email', 'note'],
      ['a@x.io', 'says "hi", twice'],
      ['b@x.io', 'two\nlines'],
    ]);
  });

  it('skips empty lines and keeps empty cells; a last line without a break counts', () => {
    expect(records('email,a\n\nx@y.z,\n\n,\ny@y.z,1')).toEqual([
      ['email', 'a'],
      ['x@y.z', ''],
      ['', ''],
      ['y@y.z', '1'],
    ]);
  });

  it('stops where the server would, naming the row', () => {
    expect(() => records('email\n"x@y.z')).toThrow(CsvSyntaxError);
    expect(() => records('email\nx"y@z.io')).toThrow(/Row 2: a quote inside a cell/);
    expect(() => records('email,a\n"x@y.z"b,1')).toThrow(/Row 2: text follows a closing quote/);
  });
});

describe('the column mapping is the one the server applies', () => {
  it('maps email and subscribed by name in any case; other named columns become data', () => {
    const mapping = importMapping(['Email ', 'SUBSCRIBED', 'plan', '', 'id', 'first name']);
    expect(mapping.map((m) => m.role)).toEqual([
      { kind: 'email' },
      { kind: 'subscribed' },
      { kind: 'data', key: 'plan' },
      { kind: 'ignored', reason: 'no header name' },
      { kind: 'ignored', reason: 'a reserved name' },
      { kind: 'data', key: 'first name' },
    ]);
    expect(mapping.map(roleText)).toEqual([
      'Email address',
      'Subscription (true or false)',
      'Data field plan',
      'Ignored: no header name',
      'Ignored: a reserved name',
      'Data field first name',
    ]);
  });

  it('of two columns with one name, the later wins', () => {
    const mapping = importMapping(['email', 'plan', ' plan', 'email']);
    expect(mapping.map((m) => m.role.kind)).toEqual(['ignored', 'ignored', 'data', 'email']);
  });

  it('types cells as the server coerces them', () => {
    for (const cell of ['42', '-3.5', '02134', '1e3', 'true', 'True', 'false', '', 'x', '4.50']) {
      expect(coerceCell(cell), cell).toEqual(serverCoerce(cell));
    }
    expect(['42', 'true', '2024-05-01', '2024-05-01T10:00:00Z', '02134', '2024-13-45'].map(cellType)).toEqual([
      'number',
      'boolean',
      'date',
      'date',
      'string',
      'string',
    ]);
  });

  it('flags exactly the rows the server refuses for an empty email or a bad subscribed value', () => {
    const header = ['email', 'subscribed', 'plan'];
    const mapping = importMapping(header);
    const rows = [
      ['a@x.io', 'yes', 'pro'],
      ['', 'no', 'pro'],
      ['b@x.io', 'maybe', ''],
      ['c@x.io', '', ''],
      ['  ', '', ''],
      ['not-an-email', '', ''],
      ['d@x', 'yes', ''],
    ];
    for (const cells of rows) {
      const server = csvRowToContact(Object.fromEntries(header.map((h, i) => [h, cells[i]!])));
      const mine = rowProblem(cells, mapping);
      expect(mine, cells.join(',')).toBe(server.ok ? null : server.message);
    }
  });
});

describe('the preview', () => {
  const csv = [
    'email,plan,seats,subscribed',
    'a@x.io,pro,3,true',
    ',free,1,',
    'b@x.io,free,,maybe',
    ...Array.from({ length: 20 }, (_, i) => `p${i}@x.io,team,${i},`),
  ].join('\n');

  it('shows the first rows, counts them all and lists the rows that will fail', () => {
    const p = previewCsv(csv, 5);
    expect(p.error).toBeNull();
    expect(p.header).toEqual(['email', 'plan', 'seats', 'subscribed']);
    expect(p.rows).toHaveLength(5);
    expect(p.rows[0]).toEqual(['a@x.io', 'pro', '3', 'true']);
    expect(p.rowCount).toBe(23);
    expect(p.problemCount).toBe(2);
    // Numbered as a spreadsheet and the server number them: the header is row 1.
    expect(p.problems).toEqual([
      { row: 3, message: 'email is empty' },
      { row: 4, message: 'subscribed must be true or false, got "maybe"' },
    ]);
    expect(p.types).toEqual([null, 'string', 'number', null]);
  });

  it('refuses a file without an email column, an empty one, and one that stops parsing', () => {
    expect(previewCsv('name,plan\nAnn,pro').error).toMatch(/no "email" column/);
    expect(previewCsv('').error).toMatch(/no header row/);
    expect(previewCsv('email\na@x.io\n"b@x.io').error).toMatch(/not valid CSV. Row 3/);
  });
});

describe('the file is checked before upload', () => {
  const file = (name: string, size: number, type = 'text/csv') => ({ name, size, type });
  it('takes a CSV up to 5 MB', () => {
    expect(checkImportFile(file('people.csv', MAX_IMPORT_BYTES))).toBeNull();
    expect(checkImportFile(file('people.txt', 10, ''))).toBeNull();
    expect(checkImportFile(file('export', 10, 'application/vnd.ms-excel'))).toBeNull();
  });
  it('refuses a bigger, empty or non-CSV file, saying why', () => {
    expect(checkImportFile(file('big.csv', MAX_IMPORT_BYTES + 1))).toBe(
      'big.csv is 5.0 MB; a CSV may be at most 5 MB. Split it into smaller files.',
    );
    expect(checkImportFile(file('empty.csv', 0))).toBe('empty.csv is empty.');
    expect(checkImportFile(file('photo.png', 10, 'image/png'))).toBe('photo.png is not a CSV file.');
  });
});

describe('what an import will do, before it starts', () => {
  const csv = [
    'email,plan',
    'Known@X.io,pro',
    'new@x.io,free',
    'not-an-email,free',
    'NEW@x.io,team',
    ',free',
    'other@x.io,',
  ].join('\n');

  it('reads each row’s address as the server stores it, null for a refused row', () => {
    const p = previewCsv(csv);
    expect(p.emails).toEqual(['known@x.io', 'new@x.io', null, 'new@x.io', null, 'other@x.io']);
    expect(p.problems).toEqual([
      { row: 4, message: '"not-an-email" is not a valid email address' },
      { row: 6, message: 'email is empty' },
    ]);
    expect(distinctEmails(p.emails)).toEqual(['known@x.io', 'new@x.io', 'other@x.io']);
  });

  it('creates the first row of a new address, updates known ones and repeats, refuses the rest', () => {
    const p = previewCsv(csv);
    const outcome = importOutcome(p.emails, new Set(['known@x.io']));
    expect(outcome.rows).toEqual(['update', 'create', 'refuse', 'update', 'refuse', 'create']);
    expect(outcome.totals).toEqual({ create: 2, update: 2, refuse: 2 });
    expect(importOutcome([], new Set()).totals).toEqual({ create: 0, update: 0, refuse: 0 });
  });
});

describe('previewCsv with a preset', () => {
  it('maps a Mailchimp cleaned file by the server’s rules and counts the states', () => {
    const csv =
      '"Email Address","First Name",MEMBER_RATING,OPTIN_TIME,LEID,TAGS,CLEAN_TIME\n' +
      'a@example.com,Ann,3,"2024-03-05 14:02:11",1,"""VIP""","2024-06-01 10:00:00"\n' +
      'nope,Bad,1,,2,,"2024-06-01 10:00:00"\n';
    const preview = previewCsv(csv, 10, 'mailchimp');
    expect(preview.error).toBeNull();
    expect(preview.mapping.map(roleText)).toEqual([
      'Email address',
      'Data field firstName',
      'Data field memberRating',
      'Data field subscribedAt',
      "Ignored: Mailchimp's own bookkeeping",
      'Data field tags',
      'Suppressed as a bounce; the time as data field cleanedAt',
    ]);
    // The opt-in time is stored as an ISO date, so the column's type is a date.
    expect(preview.types[3]).toBe('date');
    expect(preview.states).toEqual({ subscribed: 0, unsubscribed: 0, suppressed: 1, unstated: 0 });
    expect(preview.rowProblems).toEqual([null, '"nope" is not a valid email address']);
    expect(preview.emails).toEqual(['a@example.com', null]);
  });

  it('counts listmonk and Postbox states, and names the missing email column of a preset', () => {
    const listmonk = previewCsv(
      'uuid,email,name,attributes,status\n1,a@x.co,A,{},enabled\n2,b@x.co,B,{},blocklisted\n3,c@x.co,C,{},disabled\n',
      10,
      'listmonk',
    );
    expect(listmonk.states).toEqual({ subscribed: 1, unsubscribed: 1, suppressed: 1, unstated: 0 });
    const plain = previewCsv('email,subscribed\na@x.co,true\nb@x.co,\nc@x.co,no\n');
    expect(plain.states).toEqual({ subscribed: 1, unsubscribed: 1, suppressed: 0, unstated: 1 });
    expect(previewCsv('email\na@x.co\n', 10, 'mailchimp').error).toBeNull();
    expect(previewCsv('name\nA\n', 10, 'plunk').error).toMatch(/no email column of a Plunk export/);
  });
});
