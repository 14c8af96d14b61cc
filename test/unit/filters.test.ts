import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { compareText, foldCase, numberText } from '../../src/domain/filters/compile.js';
import {
  compileCondition,
  evaluateCondition,
  FILTER_LIMITS,
  type Filter,
  type FilterCondition,
  type FilterContext,
  FilterError,
  type FilterSubject,
  filterConditionSchema,
  filterReferences,
  filterSchema,
  OPERATORS,
  parseIsoInstant,
  type SegmentRef,
} from '../../src/domain/filters/index.js';
import { likePattern } from '../../src/domain/formats.js';
import { fieldErrorsFromIssues } from '../../src/platform/http/errors.js';

const NOW = new Date('2025-06-15T12:00:00.000Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ago = (ms: number) => new Date(NOW.getTime() - ms);

const SEG = {
  static: '00000000-0000-4000-8000-000000000001',
  tracked: '00000000-0000-4000-8000-000000000002',
  pro: '00000000-0000-4000-8000-000000000003',
  unknown: '00000000-0000-4000-8000-0000000000ff',
  loopA: '00000000-0000-4000-8000-00000000000a',
  loopB: '00000000-0000-4000-8000-00000000000b',
};
const only = (filter: Filter): FilterCondition => ({ logic: 'AND', groups: [{ filters: [filter] }] });

const segments: Record<string, SegmentRef> = {
  [SEG.static]: { id: SEG.static, type: 'STATIC', trackMembership: false, condition: null },
  [SEG.tracked]: {
    id: SEG.tracked,
    type: 'DYNAMIC',
    trackMembership: true,
    condition: only({ field: 'subscribed', operator: 'equals', value: true }),
  },
  [SEG.pro]: {
    id: SEG.pro,
    type: 'DYNAMIC',
    trackMembership: false,
    condition: only({ field: 'data.plan', operator: 'contains', value: 'pro' }),
  },
  [SEG.loopA]: {
    id: SEG.loopA,
    type: 'DYNAMIC',
    trackMembership: false,
    condition: only({ field: 's', operator: 'memberOfSegment', value: SEG.loopB }),
  },
  [SEG.loopB]: {
    id: SEG.loopB,
    type: 'DYNAMIC',
    trackMembership: false,
    condition: only({ field: 's', operator: 'notMemberOfSegment', value: SEG.loopA }),
  },
};

const ctx: FilterContext = {
  fieldTypes: { plan: 'string', age: 'number', vip: 'boolean', renewal: 'date', company: 'string' },
  now: NOW,
  segments: (id) => segments[id],
};

function subject(
  email: string,
  data: Record<string, unknown>,
  extra: Partial<FilterSubject['contact']> & { events?: FilterSubject['events']; memberOf?: string[] } = {},
): FilterSubject {
  return {
    contact: { email, subscribed: extra.subscribed ?? true, createdAt: extra.createdAt ?? ago(DAY), data },
    events: extra.events ?? [],
    memberOf: new Set(extra.memberOf ?? []),
  };
}

const people: FilterSubject[] = [
  subject(
    'ada@example.com',
    { plan: 'pro', age: 36, vip: true, renewal: '2025-06-10T08:00:00Z', company: { name: 'Acme', size: 50 } },
    {
      createdAt: ago(2 * DAY),
      events: [
        { name: 'signup', createdAt: ago(2 * DAY) },
        { name: 'purchase', createdAt: ago(HOUR) },
      ],
      memberOf: [SEG.static, SEG.tracked],
    },
  ),
  subject(
    'bob@example.com',
    { plan: 'Free', age: '36', vip: 'true', renewal: '2025-02-30', company: 'Acme Inc', note: null },
    {
      subscribed: false,
      createdAt: ago(40 * DAY),
      events: [
        { name: 'signup', createdAt: ago(40 * DAY) },
        { name: 'purchase', createdAt: ago(100 * DAY) },
      ],
    },
  ),
  subject(
    'cy@test.org',
    { plan: 42, age: 17.5, vip: false, renewal: '2025-06-14', company: { size: '50' } },
    {
      createdAt: ago(400 * DAY),
      events: [{ name: 'login', createdAt: ago(20 * DAY) }],
      memberOf: [SEG.static],
    },
  ),
  subject('dee_1@test.org', {}, { createdAt: ago(HOUR) }),
  subject(
    'eve@example.com',
    { plan: 'PRO plan', age: 1e21, renewal: 'soon', company: [1, 2] },
    { subscribed: false, createdAt: ago(10 * DAY) },
  ),
];

const matching = (condition: FilterCondition) =>
  people.filter((p) => evaluateCondition(condition, p, ctx)).map((p) => p.contact.email.split('@')[0]);

describe('filterConditionSchema', () => {
  it('accepts a tree using every operator', () => {
    const filters: Filter[] = [
      { field: 'email', operator: 'equals', value: 'a@b.c' },
      { field: 'subscribed', operator: 'notEquals', value: false },
      { field: 'data.plan', operator: 'contains', value: 'pro' },
      { field: 'data.plan', operator: 'notContains', value: 'test' },
      { field: 'data.age', operator: 'greaterThan', value: 30 },
      { field: 'createdAt', operator: 'lessThan', value: '2025-01-01' },
      { field: 'data.age', operator: 'greaterThanOrEqual', value: '30' },
      { field: 'data.renewal', operator: 'lessThanOrEqual', value: '2025-06-30T00:00:00Z' },
      { field: 'data.company.size', operator: 'exists' },
      { field: 'data.phone', operator: 'notExists' },
      { field: 'data.renewal', operator: 'within', value: 7, unit: 'days' },
      { field: 'createdAt', operator: 'olderThan', value: 1.5, unit: 'hours' },
      { field: 'signup', operator: 'triggered' },
      { field: 'purchase', operator: 'triggeredWithin', value: 30, unit: 'minutes' },
      { field: 'purchase', operator: 'triggeredOlderThan', value: 90, unit: 'days' },
      { field: 'segment.vip.entry', operator: 'notTriggered' },
      { field: 'login', operator: 'notTriggeredWithin', value: 30, unit: 'days' },
      { field: 'segment', operator: 'memberOfSegment', value: SEG.static },
      { field: 'segment', operator: 'notMemberOfSegment', value: SEG.pro.toUpperCase() },
      { field: 'topic', operator: 'memberOfTopic', value: SEG.static },
      { field: 'topic', operator: 'notMemberOfTopic', value: SEG.pro },
    ];
    expect(new Set(filters.map((f) => f.operator))).toEqual(new Set(OPERATORS));
    const tree = { logic: 'OR', groups: [{ filters, conditions: { logic: 'AND', groups: [{ filters: [] }] } }] };
    expect(filterConditionSchema.parse(tree)).toEqual(tree);
  });

  const rejects: [string, Record<string, unknown>, string, string, string?][] = [
    ['a missing value', { field: 'data.a', operator: 'equals' }, 'value', 'invalid_type'],
    [
      'a window without a number',
      { field: 'ev', operator: 'triggeredWithin', value: '3', unit: 'days' },
      'value',
      'invalid_type',
    ],
    ['a window of zero', { field: 'data.a', operator: 'within', value: 0, unit: 'days' }, 'value', 'too_small'],
    ['a window without a unit', { field: 'createdAt', operator: 'olderThan', value: 3 }, 'unit', 'invalid_type'],
    [
      'an unknown unit',
      { field: 'createdAt', operator: 'olderThan', value: 3, unit: 'weeks' },
      'unit',
      'invalid_enum_value',
    ],
    ['an unknown operator', { field: 'email', operator: 'startsWith', value: 'a' }, 'operator', 'invalid_enum_value'],
    ['an unknown field', { field: 'plan', operator: 'equals', value: 'pro' }, 'field', 'invalid_field'],
    ['an empty data key', { field: 'data.a..b', operator: 'exists' }, 'field', 'invalid_field'],
    [
      'an operator the field lacks',
      { field: 'email', operator: 'greaterThan', value: 'a' },
      'operator',
      'invalid_operator',
    ],
    [
      'a window on subscribed',
      { field: 'subscribed', operator: 'within', value: 1, unit: 'days' },
      'operator',
      'invalid_operator',
    ],
    ['contains with a number', { field: 'data.a', operator: 'contains', value: 4 }, 'value', 'invalid_type'],
    ['contains with an empty string', { field: 'email', operator: 'notContains', value: '' }, 'value', 'too_small'],
    ['equals with an object', { field: 'data.a', operator: 'equals', value: { a: 1 } }, 'value', 'invalid_type'],
    ['equals with null', { field: 'data.a', operator: 'notEquals', value: null }, 'value', 'invalid_type'],
    ['subscribed with a string', { field: 'subscribed', operator: 'equals', value: 'true' }, 'value', 'invalid_type'],
    [
      'createdAt with an impossible date',
      { field: 'createdAt', operator: 'equals', value: '2025-02-30' },
      'value',
      'invalid_string',
    ],
    ['a segment id in field', { field: SEG.static, operator: 'memberOfSegment' }, 'value', 'invalid_type'],
    [
      'a segment id that is no uuid',
      { field: 'segment', operator: 'notMemberOfSegment', value: 'vip' },
      'value',
      'invalid_string',
    ],
    ['an empty event name', { field: '', operator: 'triggered' }, 'field', 'too_small'],
    ['a long event name', { field: 'e'.repeat(256), operator: 'notTriggered' }, 'field', 'too_big'],
  ];
  it.each(rejects)('rejects %s', (_what, filter, path, code) => {
    const tree = { logic: 'AND', groups: [{ filters: [{ field: 'email', operator: 'exists' }, filter] }] };
    const result = filterConditionSchema.safeParse(tree);
    expect(result.success).toBe(false);
    const errors = fieldErrorsFromIssues(result.error!.issues, tree, ['condition']);
    expect(errors.map((e) => [e.field, e.code])).toEqual([[`condition.groups.0.filters.1.${path}`, code]]);
  });

  it('rejects a missing logic, no groups, and a non-array of filters, at their paths', () => {
    const result = filterConditionSchema.safeParse({
      logic: 'XOR',
      groups: [{ filters: {} }, { filters: [], conditions: { logic: 'OR', groups: [] } }],
    });
    expect(result.error!.issues.map((i) => [i.path.join('.'), i.code])).toEqual([
      ['logic', 'invalid_enum_value'],
      ['groups.0.filters', 'invalid_type'],
      ['groups.1.conditions.groups', 'too_small'],
    ]);
  });

  it(`bounds depth at ${FILTER_LIMITS.maxDepth} levels, without recursing into deeper input`, () => {
    const nest = (levels: number) => {
      let tree: Record<string, unknown> = { logic: 'AND', groups: [{ filters: [] }] };
      for (let i = 1; i < levels; i++) tree = { logic: 'AND', groups: [{ filters: [], conditions: tree }] };
      return tree;
    };
    expect(filterConditionSchema.safeParse(nest(10)).success).toBe(true);
    const deep = filterConditionSchema.safeParse(nest(11));
    expect(deep.error!.issues).toHaveLength(1);
    expect(deep.error!.issues[0]).toMatchObject({ code: 'custom', params: { code: 'too_deep' } });
    expect(deep.error!.issues[0]!.path).toEqual(Array.from({ length: 10 }, () => ['groups', 0, 'conditions']).flat());
    expect(filterConditionSchema.safeParse(nest(50_000)).success).toBe(false);
  });

  it(`bounds the tree at ${FILTER_LIMITS.maxFilters} filters in all`, () => {
    const tree = (n: number) => ({
      logic: 'OR',
      groups: [
        { filters: Array.from({ length: n - 1 }, () => ({ field: 'email', operator: 'exists' })) },
        { filters: [], conditions: { logic: 'AND', groups: [{ filters: [{ field: 'email', operator: 'exists' }] }] } },
      ],
    });
    expect(filterConditionSchema.safeParse(tree(200)).success).toBe(true);
    expect(filterConditionSchema.safeParse(tree(201)).error!.issues).toMatchObject([
      { code: 'too_big', maximum: 200, path: [] },
    ]);
  });

  it('validates one filter on its own and strips unknown keys', () => {
    expect(filterSchema.parse({ field: 'data.a', operator: 'exists', extra: 1 })).toEqual({
      field: 'data.a',
      operator: 'exists',
    });
    expect(filterSchema.safeParse({ field: 'data.a', operator: 'within', value: 2 }).error!.issues[0]!.path).toEqual([
      'unit',
    ]);
  });
});

// Each operator is checked on the database and in memory by one table of cases: test/platform/filters-sql.test.ts.
describe('evaluateCondition', () => {
  it('combines filters with AND inside a group, groups by logic, and nests', () => {
    const tree: FilterCondition = {
      logic: 'OR',
      groups: [
        {
          filters: [
            { field: 'subscribed', operator: 'equals', value: false },
            { field: 'signup', operator: 'triggered' },
          ],
        },
        {
          filters: [{ field: 'email', operator: 'contains', value: 'test.org' }],
          conditions: { logic: 'AND', groups: [{ filters: [{ field: 'data.age', operator: 'lessThan', value: 18 }] }] },
        },
      ],
    };
    expect(matching(tree)).toEqual(['bob', 'cy']);
    expect(matching({ logic: 'AND', groups: [{ filters: [] }] })).toHaveLength(people.length);
  });

  it('refuses segments that include each other, naming the loop, in both the evaluator and the compiler', () => {
    const tree = only({ field: 'segment', operator: 'memberOfSegment', value: SEG.loopA });
    const message = `Segments include each other through memberOfSegment: ${SEG.loopA} → ${SEG.loopB} → ${SEG.loopA}`;
    expect(() => evaluateCondition(tree, people[0]!, ctx)).toThrow(message);
    expect(() => evaluateCondition(tree, people[0]!, ctx)).toThrow(expect.objectContaining({ code: 'segment_cycle' }));
    expect(() => compileCondition(tree, { ...ctx, projectId: SEG.unknown })).toThrow(FilterError);
  });
});

describe('segment inlining', () => {
  // Segment i includes segment i-1 twice: a diamond, not a cycle, doubling at each level.
  const chain = (levels: number) => {
    const refs = new Map<string, SegmentRef>();
    const id = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    refs.set(id(0), {
      id: id(0),
      type: 'DYNAMIC',
      trackMembership: false,
      condition: only({ field: 'email', operator: 'exists' }),
    });
    for (let i = 1; i <= levels; i++) {
      const twice: Filter = { field: 'segment', operator: 'memberOfSegment', value: id(i - 1) };
      refs.set(id(i), {
        id: id(i),
        type: 'DYNAMIC',
        trackMembership: false,
        condition: { logic: 'OR', groups: [{ filters: [twice, twice] }] },
      });
    }
    const context: FilterContext = { ...ctx, segments: (s) => refs.get(s) };
    return { c: context, tree: only({ field: 'segment', operator: 'memberOfSegment', value: id(levels) }) };
  };

  it('inlines the same segment more than once when it is no cycle', () => {
    const { c, tree } = chain(3);
    expect(evaluateCondition(tree, people[0]!, c)).toBe(true);
    expect(() => compileCondition(tree, { ...c, projectId: SEG.unknown })).not.toThrow();
  });

  it('refuses a tree that grows past the expansion limit', () => {
    const { c, tree } = chain(12);
    expect(() => evaluateCondition(tree, people[0]!, c)).toThrow(expect.objectContaining({ code: 'too_many_filters' }));
    expect(() => compileCondition(tree, { ...c, projectId: SEG.unknown })).toThrow(FilterError);
  });
});

describe('compileCondition', () => {
  const dialect = new PgDialect();
  it('binds every user value as a parameter', () => {
    const evil = "x'); drop table contacts; --";
    const tree: FilterCondition = {
      logic: 'OR',
      groups: [
        {
          filters: [
            { field: 'email', operator: 'contains', value: evil },
            { field: `data.${evil}.b`, operator: 'equals', value: evil },
            { field: evil, operator: 'triggered' },
          ],
        },
      ],
    };
    const query = dialect.sqlToQuery(compileCondition(tree, { ...ctx, projectId: SEG.unknown }));
    expect(query.sql).not.toContain('drop table');
    expect(query.params).toContain(evil);
  });

  it('answers false for an unknown segment and inlines an untracked one', () => {
    const unknown = dialect.sqlToQuery(
      compileCondition(only({ field: 's', operator: 'memberOfSegment', value: SEG.unknown }), {
        ...ctx,
        projectId: SEG.unknown,
      }),
    );
    expect(unknown.sql).toBe('false');
    const inlined = dialect.sqlToQuery(
      compileCondition(only({ field: 's', operator: 'memberOfSegment', value: SEG.pro }), {
        ...ctx,
        projectId: SEG.unknown,
      }),
    );
    expect(inlined.sql).toContain('ilike');
    expect(inlined.sql).not.toContain('segment_members');
  });
});

describe('value helpers', () => {
  it('accept only real calendar dates in the two forms', () => {
    expect(parseIsoInstant('2024-02-29')).toBe(Date.parse('2024-02-29T00:00:00Z'));
    expect(parseIsoInstant('2000-02-29T23:59:59.999Z')).toBe(Date.parse('2000-02-29T23:59:59.999Z'));
    for (const bad of [
      '2023-02-29',
      '1900-02-29',
      '2025-04-31',
      '2025-13-01',
      '0000-01-01',
      '2025-06-14T24:00:00Z',
      '2025-06-14T10:00:60Z',
      '2025-06-14T10:00:00',
      '2025-06-14T10:00:00+02:00',
      '2025-06-14 10:00:00Z',
      '2025-6-14',
      20250614,
    ]) {
      expect(parseIsoInstant(bad), String(bad)).toBeNull();
    }
  });

  it('print numbers as PostgreSQL prints jsonb numbers', () => {
    expect([1e21, 1.5e-7, 1e-7, -2.5e25, 42, -0, 0.1, 123456789.125].map(numberText)).toEqual([
      '1000000000000000000000',
      '0.00000015',
      '0.0000001',
      '-25000000000000000000000000',
      '42',
      '0',
      '0.1',
      '123456789.125',
    ]);
  });

  it('fold case character by character and compare by code point', () => {
    expect(foldCase('ÉİẞΣ ΑΣ')).toBe('éißσ ασ');
    expect(compareText('b', 'B')).toBeGreaterThan(0);
    expect(compareText('\uFFFF', '😀')).toBeLessThan(0);
    expect(compareText('ab', 'a')).toBeGreaterThan(0);
    expect(likePattern('50%_\\')).toBe('%50\\%\\_\\\\%');
  });

  it('list what a tree names', () => {
    const refs = filterReferences({
      logic: 'AND',
      groups: [
        {
          filters: [
            { field: 'data.plan', operator: 'equals', value: 'pro' },
            { field: 'signup', operator: 'triggered' },
            { field: 'segment', operator: 'memberOfSegment', value: SEG.pro.toUpperCase() },
          ],
          conditions: only({ field: 'data.plan', operator: 'exists' }),
        },
      ],
    });
    expect(refs).toEqual({ fields: ['data.plan'], events: ['signup'], segments: [SEG.pro] });
  });
});
