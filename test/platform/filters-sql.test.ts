import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FieldType } from '../../src/domain/contact-data.js';
import {
  type CompileContext,
  compileCondition,
  evaluateCondition,
  type Filter,
  type FilterCondition,
  FilterError,
  type FilterGroup,
  type FilterSubject,
  filterConditionSchema,
  OPERATORS,
  type Operator,
  operatorKind,
  parseField,
  type SegmentRef,
  STANDARD_FIELD_OPERATORS,
} from '../../src/domain/filters/index.js';
import { type Database, openDatabase, run } from '../../src/platform/db/client.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { mulberry32 } from '../support/random.js';

let testDb: TestDatabase;
let database: Database;

beforeAll(async () => {
  testDb = await createTestDatabase();
  database = await openDatabase({ databaseUrl: testDb.env.DATABASE_URL, dataDir: testDb.env.DATA_DIR! });
  await database.migrate();
});
afterAll(async () => {
  await database.close();
  await testDb.drop();
});

const NOW = new Date('2025-06-15T12:00:00.000Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const ago = (ms: number) => new Date(NOW.getTime() - ms);

// ---------------------------------------------------------------------------------------------
// Writing a world into the database, and reading it back as the evaluator's subjects.

interface NewContact {
  email: string;
  subscribed: boolean;
  createdAt: Date;
  data: Record<string, unknown>;
  events?: { name: string; createdAt: Date }[];
}
interface NewSegment extends SegmentRef {
  members?: string[];
}
interface NewTopic {
  id: string;
  defaultOn: boolean;
  /** email → the contact's choice; contacts not named have the default. */
  choices: Record<string, boolean>;
}
interface World {
  projectId: string;
  ids: Map<string, string>;
  segments: Map<string, SegmentRef>;
  topics: Map<string, { id: string; defaultOn: boolean }>;
  subjects: FilterSubject[];
}

async function createWorld(
  contacts: NewContact[],
  segments: NewSegment[] = [],
  topics: NewTopic[] = [],
): Promise<World> {
  const db = database.db;
  const projectId = randomUUID();
  await run(
    db,
    sql`insert into projects (id, name, public_key_hash, secret_key_hash) values (${projectId}::uuid, 'filters', ${`pk-${projectId}`}, ${`sk-${projectId}`})`,
  );
  const ids = new Map(contacts.map((c) => [c.email, randomUUID()]));
  const rows = contacts.map((c) => ({
    id: ids.get(c.email),
    email: c.email,
    subscribed: c.subscribed,
    data: c.data,
    created_at: c.createdAt.toISOString(),
  }));
  await run(
    db,
    sql`
    insert into contacts (id, project_id, email, subscribed, data, created_at)
    select x.id, ${projectId}::uuid, x.email, x.subscribed, x.data, x.created_at
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(id uuid, email text, subscribed boolean, data jsonb, created_at timestamptz)`,
  );
  const events = contacts.flatMap((c) =>
    (c.events ?? []).map((e) => ({
      contact_id: ids.get(c.email),
      name: e.name,
      created_at: e.createdAt.toISOString(),
    })),
  );
  await run(
    db,
    sql`
    insert into events (project_id, contact_id, name, created_at)
    select ${projectId}::uuid, x.contact_id, x.name, x.created_at
    from jsonb_to_recordset(${JSON.stringify(events)}::jsonb) as x(contact_id uuid, name text, created_at timestamptz)`,
  );
  for (const s of segments) {
    await run(
      db,
      sql`
      insert into segments (id, project_id, name, slug, type, condition, track_membership)
      values (${s.id}::uuid, ${projectId}::uuid, ${s.id}, ${s.id}, ${s.type}, ${JSON.stringify(s.condition)}::jsonb, ${s.trackMembership})`,
    );
    const members = (s.members ?? []).map((email) => ids.get(email)!);
    await run(
      db,
      sql`
      insert into segment_members (segment_id, contact_id)
      select ${s.id}::uuid, m::uuid from jsonb_array_elements_text(${JSON.stringify(members)}::jsonb) as m(m)`,
    );
  }
  for (const t of topics) {
    await run(
      db,
      sql`insert into topics (id, project_id, name, default_on, created_at, updated_at)
        values (${t.id}::uuid, ${projectId}::uuid, ${t.id}, ${t.defaultOn}, now(), now())`,
    );
    for (const [email, subscribed] of Object.entries(t.choices)) {
      await run(
        db,
        sql`insert into contact_topics (topic_id, contact_id, subscribed, updated_at)
          values (${t.id}::uuid, ${ids.get(email)!}::uuid, ${subscribed}, now())`,
      );
    }
  }
  return {
    projectId,
    ids,
    segments: new Map(segments.map((s) => [s.id, s])),
    topics: new Map(topics.map((t) => [t.id, { id: t.id, defaultOn: t.defaultOn }])),
    subjects: await loadSubjects(projectId),
  };
}

/** The subjects as a workflow would load them: data as the database returns it. */
async function loadSubjects(projectId: string): Promise<FilterSubject[]> {
  const db = database.db;
  const contacts = (
    await run(
      db,
      sql`select id, email, subscribed, data, created_at from contacts where project_id = ${projectId}::uuid order by email`,
    )
  ).rows;
  const events = (
    await run(db, sql`select contact_id, name, created_at from events where project_id = ${projectId}::uuid`)
  ).rows;
  const members = (
    await run(
      db,
      sql`select m.segment_id, m.contact_id from segment_members m join contacts c on c.id = m.contact_id where c.project_id = ${projectId}::uuid`,
    )
  ).rows;
  const choices = (
    await run(
      db,
      sql`select ct.contact_id, ct.topic_id, ct.subscribed from contact_topics ct join contacts c on c.id = ct.contact_id where c.project_id = ${projectId}::uuid`,
    )
  ).rows;
  return contacts.map((c) => ({
    topics: Object.fromEntries(choices.filter((t) => t.contact_id === c.id).map((t) => [t.topic_id, t.subscribed])),
    contact: { email: c.email, subscribed: c.subscribed, createdAt: new Date(c.created_at), data: c.data },
    events: events
      .filter((e) => e.contact_id === c.id)
      .map((e) => ({ name: e.name, createdAt: new Date(e.created_at) })),
    memberOf: new Set(members.filter((m) => m.contact_id === c.id).map((m) => m.segment_id)),
  }));
}

function contextOf(world: World, fieldTypes: Record<string, FieldType>): CompileContext {
  return {
    projectId: world.projectId,
    fieldTypes,
    now: NOW,
    segments: (id) => world.segments.get(id),
    topics: (id) => world.topics.get(id),
  };
}

async function sqlMatches(world: World, condition: FilterCondition, ctx: CompileContext): Promise<string[]> {
  const query = sql`select c.email from contacts c where c.project_id = ${world.projectId}::uuid and (${compileCondition(condition, ctx)}) order by c.email`;
  return (await run(database.db, query)).rows.map((r) => r.email);
}

function evaluatorMatches(world: World, condition: FilterCondition, ctx: CompileContext): string[] {
  return world.subjects.filter((s) => evaluateCondition(condition, s, ctx)).map((s) => s.contact.email);
}

const only = (filter: Filter): FilterCondition => ({ logic: 'AND', groups: [{ filters: [filter] }] });

// ---------------------------------------------------------------------------------------------
// One test per operator, on hand-made contacts.

describe('compiled filters on the database, operator by operator', () => {
  const SEG = {
    static: randomUUID(),
    tracked: randomUUID(),
    pro: randomUUID(),
    proSubscribed: randomUUID(),
    loopA: randomUUID(),
    loopB: randomUUID(),
    unknown: randomUUID(),
  };
  const TOPIC = { on: randomUUID(), off: randomUUID(), unknown: randomUUID() };
  const fieldTypes: Record<string, FieldType> = {
    plan: 'string',
    age: 'number',
    vip: 'boolean',
    renewal: 'date',
    company: 'string',
    city: 'string',
  };
  let world: World;
  let ctx: CompileContext;

  beforeAll(async () => {
    world = await createWorld(
      [
        {
          email: 'ada@example.com',
          subscribed: true,
          createdAt: ago(2 * DAY),
          data: {
            plan: 'pro',
            age: 36,
            vip: true,
            renewal: '2025-06-10T08:00:00Z',
            company: { name: 'Acme', size: 50 },
            city: 'Zürich',
            'odd "key", {x} \\': 'yes',
          },
          events: [
            { name: 'signup', createdAt: ago(2 * DAY) },
            { name: 'purchase', createdAt: ago(HOUR) },
          ],
        },
        {
          email: 'bob@example.com',
          subscribed: false,
          createdAt: ago(40 * DAY),
          data: { plan: 'Free', age: '36', vip: 'true', renewal: '2025-02-30', company: 'Acme Inc', note: null },
          events: [
            { name: 'signup', createdAt: ago(40 * DAY) },
            { name: 'purchase', createdAt: ago(100 * DAY) },
          ],
        },
        {
          email: 'cy@test.org',
          subscribed: true,
          createdAt: ago(400 * DAY),
          data: { plan: 42, age: 17.5, vip: false, renewal: '2025-06-14', company: { size: '50' } },
          events: [{ name: 'login', createdAt: ago(20 * DAY) }],
        },
        { email: 'dee_1@test.org', subscribed: true, createdAt: ago(HOUR), data: {} },
        {
          email: 'eve@example.com',
          subscribed: false,
          createdAt: ago(10 * DAY),
          data: { plan: 'PRO plan', age: 1e21, renewal: 'soon', company: [1, 2], city: 'ZÜRICH' },
          events: [{ name: 'purchase', createdAt: ago(-HOUR) }],
        },
        {
          email: 'fay%x@example.com',
          subscribed: true,
          createdAt: ago(3 * DAY),
          data: { plan: '', age: 1.5e-7, vip: 1, renewal: 1718000000000, company: { size: 1e-7 }, city: 'İstanbul' },
          events: [{ name: 'purchase', createdAt: ago(2 * HOUR) }],
        },
      ],
      [
        {
          id: SEG.static,
          type: 'STATIC',
          trackMembership: false,
          condition: null,
          members: ['ada@example.com', 'cy@test.org'],
        },
        // The member list is what counts for a tracked segment, even when it is stale.
        {
          id: SEG.tracked,
          type: 'DYNAMIC',
          trackMembership: true,
          condition: only({ field: 'subscribed', operator: 'equals', value: true }),
          members: ['ada@example.com'],
        },
        {
          id: SEG.pro,
          type: 'DYNAMIC',
          trackMembership: false,
          condition: only({ field: 'data.plan', operator: 'contains', value: 'pro' }),
        },
        {
          id: SEG.proSubscribed,
          type: 'DYNAMIC',
          trackMembership: false,
          condition: {
            logic: 'AND',
            groups: [
              {
                filters: [
                  { field: 'segment', operator: 'memberOfSegment', value: SEG.pro },
                  { field: 'subscribed', operator: 'equals', value: true },
                ],
              },
            ],
          },
        },
        {
          id: SEG.loopA,
          type: 'DYNAMIC',
          trackMembership: false,
          condition: only({ field: 'segment', operator: 'memberOfSegment', value: SEG.loopB }),
        },
        {
          id: SEG.loopB,
          type: 'DYNAMIC',
          trackMembership: false,
          condition: only({ field: 'segment', operator: 'notMemberOfSegment', value: SEG.loopA }),
        },
      ],
      [
        // Whether a contact is subscribed does not matter to the filter: bob is unsubscribed.
        { id: TOPIC.on, defaultOn: true, choices: { 'ada@example.com': false, 'bob@example.com': true } },
        {
          id: TOPIC.off,
          defaultOn: false,
          choices: { 'cy@test.org': true, 'bob@example.com': true, 'eve@example.com': false },
        },
      ],
    );
    ctx = contextOf(world, fieldTypes);
    // Another project's look-alike contact never shows up.
    await createWorld([
      {
        email: 'ada@example.com',
        subscribed: true,
        createdAt: ago(HOUR),
        data: { plan: 'pro' },
        events: [{ name: 'signup', createdAt: ago(HOUR) }],
      },
    ]);
  });

  const cases: [string, Filter, string][] = [
    ['equals: email ignoring case', { field: 'email', operator: 'equals', value: 'ADA@Example.com' }, 'ada'],
    ['equals: string key, exact', { field: 'data.plan', operator: 'equals', value: 'pro' }, 'ada'],
    ['equals: string key reads a stored number as text', { field: 'data.plan', operator: 'equals', value: 42 }, 'cy'],
    ['equals: number key, stored strings never match', { field: 'data.age', operator: 'equals', value: 36 }, 'ada'],
    ['equals: number key, exponent operand', { field: 'data.age', operator: 'equals', value: '1e21' }, 'eve'],
    ['equals: boolean key', { field: 'data.vip', operator: 'equals', value: true }, 'ada'],
    ['equals: date key, a day', { field: 'data.renewal', operator: 'equals', value: '2025-06-14' }, 'cy'],
    [
      'equals: nested key typed by its top-level key',
      { field: 'data.company.size', operator: 'equals', value: 50 },
      'ada cy',
    ],
    [
      'equals: a key with quotes, commas, braces and a backslash',
      { field: 'data.odd "key", {x} \\', operator: 'equals', value: 'yes' },
      'ada',
    ],
    [
      'equals: tiny numbers as PostgreSQL prints them',
      { field: 'data.company.size', operator: 'equals', value: '0.0000001' },
      'fay%x',
    ],
    [
      'notEquals: missing keys match',
      { field: 'data.plan', operator: 'notEquals', value: 'pro' },
      'bob cy dee_1 eve fay%x',
    ],
    ['notEquals: subscribed', { field: 'subscribed', operator: 'notEquals', value: true }, 'bob eve'],
    ['contains: case-insensitive', { field: 'data.plan', operator: 'contains', value: 'PRO' }, 'ada eve'],
    ['contains: non-ASCII case', { field: 'data.city', operator: 'contains', value: 'zürich' }, 'ada eve'],
    ['contains: dotted capital I', { field: 'data.city', operator: 'contains', value: 'ISTANBUL' }, 'fay%x'],
    ['contains: email, underscore is literal', { field: 'email', operator: 'contains', value: '_' }, 'dee_1'],
    ['contains: email, percent is literal', { field: 'email', operator: 'contains', value: '%X@' }, 'fay%x'],
    [
      'notContains: missing keys match',
      { field: 'data.plan', operator: 'notContains', value: 'pro' },
      'bob cy dee_1 fay%x',
    ],
    ['greaterThan: number key', { field: 'data.age', operator: 'greaterThan', value: 20 }, 'ada eve'],
    [
      'greaterThan: string key in code point order',
      { field: 'data.plan', operator: 'greaterThan', value: 'PRO' },
      'ada eve',
    ],
    ['lessThan: number key', { field: 'data.age', operator: 'lessThan', value: 40 }, 'ada cy fay%x'],
    ['lessThan: createdAt', { field: 'createdAt', operator: 'lessThan', value: '2025-05-10' }, 'bob cy'],
    [
      'greaterThanOrEqual: date key',
      { field: 'data.renewal', operator: 'greaterThanOrEqual', value: '2025-06-14' },
      'cy',
    ],
    [
      'lessThanOrEqual: date key, the whole day',
      { field: 'data.renewal', operator: 'lessThanOrEqual', value: '2025-06-10' },
      'ada',
    ],
    ['exists: null is not there', { field: 'data.note', operator: 'exists' }, ''],
    ['exists: nested', { field: 'data.company.size', operator: 'exists' }, 'ada cy fay%x'],
    ['notExists', { field: 'data.vip', operator: 'notExists' }, 'dee_1 eve'],
    ['within: date key', { field: 'data.renewal', operator: 'within', value: 7, unit: 'days' }, 'ada cy'],
    ['within: createdAt', { field: 'createdAt', operator: 'within', value: 90, unit: 'minutes' }, 'dee_1'],
    ['olderThan: createdAt', { field: 'createdAt', operator: 'olderThan', value: 30, unit: 'days' }, 'bob cy'],
    [
      'olderThan: date key, impossible dates never match',
      { field: 'data.renewal', operator: 'olderThan', value: 1, unit: 'hours' },
      'ada cy',
    ],
    ['triggered', { field: 'signup', operator: 'triggered' }, 'ada bob'],
    [
      'triggeredWithin: from the boundary on, future events included',
      { field: 'purchase', operator: 'triggeredWithin', value: 2, unit: 'hours' },
      'ada eve fay%x',
    ],
    [
      'triggeredOlderThan: an older event exists',
      { field: 'signup', operator: 'triggeredOlderThan', value: 1, unit: 'days' },
      'ada bob',
    ],
    ['notTriggered', { field: 'signup', operator: 'notTriggered' }, 'cy dee_1 eve fay%x'],
    [
      'notTriggeredWithin: never counts',
      { field: 'purchase', operator: 'notTriggeredWithin', value: 30, unit: 'days' },
      'bob cy dee_1',
    ],
    ['memberOfSegment: static', { field: 'segment', operator: 'memberOfSegment', value: SEG.static }, 'ada cy'],
    [
      'memberOfSegment: tracked, by its member list',
      { field: 'segment', operator: 'memberOfSegment', value: SEG.tracked },
      'ada',
    ],
    [
      'memberOfSegment: untracked, inlined',
      { field: 'segment', operator: 'memberOfSegment', value: SEG.pro },
      'ada eve',
    ],
    [
      'memberOfSegment: untracked including untracked',
      { field: 'segment', operator: 'memberOfSegment', value: SEG.proSubscribed.toUpperCase() },
      'ada',
    ],
    ['memberOfSegment: unknown, nobody', { field: 'segment', operator: 'memberOfSegment', value: SEG.unknown }, ''],
    [
      'notMemberOfSegment: unknown, everybody',
      { field: 'segment', operator: 'notMemberOfSegment', value: SEG.unknown },
      'ada bob cy dee_1 eve fay%x',
    ],
    [
      'memberOfTopic: on by default, less those who left',
      { field: 'topic', operator: 'memberOfTopic', value: TOPIC.on },
      'bob cy dee_1 eve fay%x',
    ],
    [
      'memberOfTopic: off by default, those who chose it',
      { field: 'topic', operator: 'memberOfTopic', value: TOPIC.off.toUpperCase() },
      'bob cy',
    ],
    ['memberOfTopic: unknown, nobody', { field: 'topic', operator: 'memberOfTopic', value: TOPIC.unknown }, ''],
    [
      'notMemberOfTopic: off by default',
      { field: 'topic', operator: 'notMemberOfTopic', value: TOPIC.off },
      'ada dee_1 eve fay%x',
    ],
    [
      'notMemberOfSegment: untracked',
      { field: 'segment', operator: 'notMemberOfSegment', value: SEG.pro },
      'bob cy dee_1 fay%x',
    ],
    [
      'equals: string key, a text operand matches a stored number',
      { field: 'data.plan', operator: 'equals', value: '42' },
      'cy',
    ],
    ['equals: number key, a numeric text operand', { field: 'data.age', operator: 'equals', value: '36' }, 'ada'],
    [
      'equals: number key, a non-numeric operand matches nobody',
      { field: 'data.age', operator: 'equals', value: 'old' },
      '',
    ],
    ['equals: boolean key, a text operand', { field: 'data.vip', operator: 'equals', value: 'true' }, 'ada'],
    [
      'equals: date key, a day holds its instants',
      { field: 'data.renewal', operator: 'equals', value: '2025-06-10' },
      'ada',
    ],
    [
      'equals: createdAt, an instant',
      { field: 'createdAt', operator: 'equals', value: ago(HOUR).toISOString() },
      'dee_1',
    ],
    [
      'contains: a number key read as text',
      { field: 'data.age', operator: 'contains', value: '000000000000000000000' },
      'eve',
    ],
    [
      'greaterThan: date key, a day means after it',
      { field: 'data.renewal', operator: 'greaterThan', value: '2025-06-10' },
      'cy',
    ],
    ['greaterThan: boolean key matches nobody', { field: 'data.vip', operator: 'greaterThan', value: 0 }, ''],
    ['exists: a standard field always', { field: 'email', operator: 'exists' }, 'ada bob cy dee_1 eve fay%x'],
  ];

  it('covers every operator', () => {
    expect(new Set(cases.map(([, f]) => f.operator))).toEqual(new Set(OPERATORS));
  });

  it.each(cases)('%s', async (_what, filter, expected) => {
    const condition = filterConditionSchema.parse(only(filter));
    const emails = expected
      .split(' ')
      .filter(Boolean)
      .map((name) => `${name}@${name === 'cy' || name === 'dee_1' ? 'test.org' : 'example.com'}`)
      .sort();
    expect(await sqlMatches(world, condition, ctx)).toEqual(emails);
    expect(evaluatorMatches(world, condition, ctx)).toEqual(emails);
  });

  it('refuses segments that include each other', async () => {
    const condition = only({ field: 'segment', operator: 'memberOfSegment', value: SEG.loopB });
    expect(() => compileCondition(condition, ctx)).toThrow(
      new FilterError(
        'segment_cycle',
        `Segments include each other through memberOfSegment: ${SEG.loopB} → ${SEG.loopA} → ${SEG.loopB}`,
      ),
    );
    expect(() => evaluateCondition(condition, world.subjects[0]!, ctx)).toThrow(FilterError);
  });
});

// ---------------------------------------------------------------------------------------------
// The property: on random contacts and random trees, SQL and the evaluator pick the same contacts.

describe('compiled SQL agrees with the evaluator on random trees', () => {
  const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
  const random = mulberry32(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (p: number) => random() < p;

  // Offsets before NOW that fall exactly on window boundaries, plus a few odd ones and the future.
  const OFFSETS = [
    0,
    30 * MINUTE,
    HOUR,
    2 * HOUR,
    DAY,
    2 * DAY,
    7 * DAY,
    30 * DAY,
    90 * DAY,
    400 * DAY,
    1,
    59 * MINUTE + 999,
    3 * DAY + 7 * HOUR + 123,
    -HOUR,
    -2 * DAY,
  ];
  const iso = (at: Date, form: number) => {
    const text = at.toISOString();
    return form === 0 ? text : form === 1 ? text.replace(/\.\d{3}Z$/, 'Z') : text.slice(0, 10);
  };
  const someDate = () => iso(ago(pick(OFFSETS)), Math.floor(random() * 3));
  const ODD_DATES = [
    '2024-02-29',
    '2023-02-29',
    '2025-13-01',
    '2025-06-14T24:00:00Z',
    '2025-06-14T10:00:00+02:00',
    '2025-06-15',
    'soon',
    '0000-01-01',
    '9999-12-31',
  ];
  const STRINGS = [
    'pro',
    'Pro',
    'PRO plan',
    'free',
    'Free',
    '',
    'Éclair',
    'éclair',
    'İstanbul',
    'istanbul',
    'ΣΑΣ',
    'a_b',
    '50%',
    'back\\slash',
    '36',
    'true',
    '0.0000001',
    'Zürich',
  ];
  const NUMBERS = [42, 36, 17.5, -2, 0, 1e21, 1.5e-7, 123456789, 50, 0.1];
  const OBJECTS = [
    { name: 'Acme', size: 50 },
    { size: '50' },
    { size: 1e-7 },
    { size: null },
    { name: { first: 'Ada' } },
    [1, 2],
    ['pro'],
    {},
  ];
  const scalar = (): unknown =>
    pick([
      () => pick(STRINGS),
      () => pick(NUMBERS),
      () => chance(0.5),
      () => someDate(),
      () => pick(ODD_DATES),
      () => null,
    ])();
  const TYPICAL: Record<string, () => unknown> = {
    plan: () => pick(STRINGS),
    age: () => pick(NUMBERS),
    vip: () => chance(0.5),
    renewal: () => (chance(0.8) ? someDate() : pick(ODD_DATES)),
    company: () => pick(OBJECTS),
    note: scalar,
  };
  const KEYS = Object.keys(TYPICAL);
  const EVENTS = ['signup', 'purchase', 'login', 'segment.vip.entry'];
  /** Two topics of the world (on and off by default) and one of no project. */
  const FUZZ_TOPICS = [randomUUID(), randomUUID(), randomUUID()];
  const FIELDS = [
    'email',
    'subscribed',
    'createdAt',
    ...KEYS.map((k) => `data.${k}`),
    'data.company.size',
    'data.company.name',
    'data.company.name.first',
    'data.missing',
  ];
  const TYPES: FieldType[] = ['string', 'number', 'boolean', 'date'];
  const CANONICAL: Record<string, FieldType> = {
    plan: 'string',
    age: 'number',
    vip: 'boolean',
    renewal: 'date',
    company: 'string',
  };

  function randomContacts(n: number): NewContact[] {
    return Array.from({ length: n }, (_, i) => {
      const data: Record<string, unknown> = {};
      for (const key of KEYS) {
        if (chance(0.25)) continue;
        data[key] = chance(0.7) ? TYPICAL[key]!() : chance(0.8) ? scalar() : pick(OBJECTS);
      }
      const events = Array.from({ length: Math.floor(random() * 5) }, () => ({
        name: pick(EVENTS),
        createdAt: ago(pick(OFFSETS)),
      }));
      const local = pick(['u', 'u_', 'u%', 'Ü'.toLowerCase()]);
      return {
        email: `${local}${i}@${pick(['example.com', 'test.org', 'ex_ample.net'])}`,
        subscribed: chance(0.6),
        createdAt: ago(pick(OFFSETS)),
        data,
        events,
      };
    });
  }

  function randomFilter(contacts: NewContact[], segmentIds: string[], allowMembership: boolean): Filter {
    let operator: Operator = pick(OPERATORS);
    while (!allowMembership && operatorKind(operator) === 'segment') operator = pick(OPERATORS);
    const windowed = ['within', 'olderThan', 'triggeredWithin', 'triggeredOlderThan', 'notTriggeredWithin'].includes(
      operator,
    );
    const window = {
      value: pick([0.5, 1, 2, 7, 30, 90, 400, 1.25]),
      unit: pick(['days', 'hours', 'minutes'] as const),
    };
    if (operatorKind(operator) === 'event') {
      const field = pick([...EVENTS, 'never']);
      return operator === 'triggered' || operator === 'notTriggered'
        ? { field, operator }
        : { field, operator, ...window };
    }
    if (operatorKind(operator) === 'segment') return { field: 'segment', operator, value: pick(segmentIds) };
    if (operatorKind(operator) === 'topic') return { field: 'topic', operator, value: pick(FUZZ_TOPICS) };
    let field = pick(FIELDS);
    const ref = parseField(field)!;
    if (ref.kind !== 'data' && !STANDARD_FIELD_OPERATORS[ref.kind].has(operator))
      field = pick(FIELDS.filter((f) => f.startsWith('data.')));
    if (operator === 'exists' || operator === 'notExists') return { field, operator };
    if (windowed) return { field, operator, ...window };
    const stored = () => {
      const values = contacts
        .map((c) => c.data[field.split('.')[1]!])
        .filter((v) => ['string', 'number', 'boolean'].includes(typeof v));
      return values.length ? pick(values) : pick(STRINGS);
    };
    if (operator === 'contains' || operator === 'notContains') {
      const value =
        field === 'email'
          ? pick(['example', 'EXAMPLE', '_', '%', '1', '@test.', 'ü', 'U%1'])
          : pick([
              'pro',
              'PRO',
              'a',
              '4',
              '2025-06',
              'É',
              'é',
              'ISTANBUL',
              'true',
              '0.0',
              '_',
              '%',
              '\\',
              'σ',
              'Σ',
              '1',
              'T1',
              'ZÜ',
            ]);
      return { field, operator, value };
    }
    const ordering = operator !== 'equals' && operator !== 'notEquals';
    switch (field) {
      case 'email':
        return { field, operator, value: chance(0.7) ? pick(contacts).email.toUpperCase() : 'nobody@example.com' };
      case 'subscribed':
        return { field, operator, value: chance(0.5) };
      case 'createdAt':
        return { field, operator, value: chance(0.5) ? pick(contacts).createdAt.toISOString() : someDate() };
    }
    const value = pick([
      stored,
      () => pick(STRINGS),
      () => pick(NUMBERS),
      () => chance(0.5),
      someDate,
      () => pick(ODD_DATES),
      () => String(pick(NUMBERS)),
    ])();
    if (ordering && typeof value === 'boolean') return { field, operator, value: String(value) };
    return { field, operator, value };
  }

  function randomCondition(
    contacts: NewContact[],
    segmentIds: string[],
    depth: number,
    maxDepth: number,
    allowMembership: boolean,
  ): FilterCondition {
    const groups: FilterGroup[] = Array.from({ length: 1 + Math.floor(random() * 2) }, () => {
      const filters = Array.from({ length: Math.floor(random() * 3) }, () =>
        randomFilter(contacts, segmentIds, allowMembership),
      );
      const group: FilterGroup = { filters };
      if (depth < maxDepth && (filters.length === 0 || chance(0.35)))
        group.conditions = randomCondition(contacts, segmentIds, depth + 1, maxDepth, allowMembership);
      return group;
    });
    return { logic: chance(0.5) ? 'AND' : 'OR', groups };
  }

  it(`300 random trees over 60 random contacts (seed ${seed}; rerun with FUZZ_SEED=${seed})`, async () => {
    const contacts = randomContacts(60);
    const emails = contacts.map((c) => c.email);
    const ids = {
      static: randomUUID(),
      tracked: randomUUID(),
      inline: randomUUID(),
      inlineNested: randomUUID(),
      unknown: randomUUID(),
    };
    const inline = randomCondition(contacts, [], 1, 2, false);
    const inlineNested = randomCondition(contacts, [ids.static, ids.tracked, ids.inline, ids.unknown], 1, 2, true);
    const world = await createWorld(
      contacts,
      [
        {
          id: ids.static,
          type: 'STATIC',
          trackMembership: false,
          condition: null,
          members: emails.filter(() => chance(0.3)),
        },
        {
          id: ids.tracked,
          type: 'DYNAMIC',
          trackMembership: true,
          condition: inline,
          members: emails.filter(() => chance(0.3)),
        },
        { id: ids.inline, type: 'DYNAMIC', trackMembership: false, condition: inline },
        { id: ids.inlineNested, type: 'DYNAMIC', trackMembership: false, condition: inlineNested },
      ],
      FUZZ_TOPICS.slice(0, 2).map((id, i) => ({
        id,
        defaultOn: i === 0,
        choices: Object.fromEntries(emails.filter(() => chance(0.4)).map((e) => [e, chance(0.5)])),
      })),
    );
    const segmentIds = Object.values(ids);
    let informative = 0;
    for (let i = 0; i < 300; i++) {
      const tree = randomCondition(contacts, segmentIds, 1, 3, true);
      const fieldTypes: Record<string, FieldType> = {};
      for (const key of KEYS) {
        if (key in CANONICAL && chance(0.7)) fieldTypes[key] = CANONICAL[key]!;
        else if (chance(0.7)) fieldTypes[key] = pick(TYPES);
      }
      const label = `seed ${seed}, tree ${i}: ${JSON.stringify(tree)}\nfieldTypes ${JSON.stringify(fieldTypes)}`;
      const parsed = filterConditionSchema.safeParse(tree);
      expect(parsed.error?.issues, label).toBeUndefined();
      const ctx = contextOf(world, fieldTypes);
      const fromSql = await sqlMatches(world, tree, ctx);
      const fromEvaluator = evaluatorMatches(world, tree, ctx);
      if (JSON.stringify(fromSql) !== JSON.stringify(fromEvaluator)) {
        expect(
          fromSql,
          `${label}\nfirst disagreeing filter: ${JSON.stringify(await firstDisagreement(world, tree, ctx))}`,
        ).toEqual(fromEvaluator);
      }
      if (fromSql.length > 0 && fromSql.length < contacts.length) informative++;
    }
    // Most trees split the contacts, so the agreement means something.
    expect(informative, `seed ${seed}`).toBeGreaterThanOrEqual(75);
  });

  async function firstDisagreement(world: World, tree: FilterCondition, ctx: CompileContext) {
    const filters = (c: FilterCondition): Filter[] =>
      c.groups.flatMap((g) => [...g.filters, ...(g.conditions ? filters(g.conditions) : [])]);
    for (const filter of filters(tree)) {
      const sqlSide = await sqlMatches(world, only(filter), ctx);
      const evaluatorSide = evaluatorMatches(world, only(filter), ctx);
      if (JSON.stringify(sqlSide) !== JSON.stringify(evaluatorSide)) {
        return {
          filter,
          onlySql: sqlSide.filter((e) => !evaluatorSide.includes(e)),
          onlyEvaluator: evaluatorSide.filter((e) => !sqlSide.includes(e)),
        };
      }
    }
    return null;
  }
});
