import { describe, expect, it } from 'vitest';
import type { Filter, FilterCondition } from '../../src/domain/filters/index.js';
import { OPERATOR_SPECS, OPERATORS, STANDARD_FIELD_OPERATORS } from '../../src/domain/filters/index.js';
import { searchChoices } from '../../web/src/components/filter-builder/field-choices.js';
import * as tree from '../../web/src/components/filter-builder/filter-tree.js';
import {
  choiceOf,
  type FieldChoice,
  matchWords,
  operatorLabel,
  operatorsFor,
  type ValueType,
} from '../../web/src/components/filter-builder/operator-words.js';
import * as form from '../../web/src/pages/segments/segment-form.js';

const plan: Filter = { field: 'data.plan', operator: 'equals', value: 'pro' };
const seats: Filter = { field: 'data.seats', operator: 'greaterThan', value: 2 };
const field = (name: string, type: ValueType): FieldChoice => ({ field: name, label: name, kind: 'field', type });

describe('editing a filter tree one level at a time', () => {
  it('adds, replaces and removes filters and groups without touching the input', () => {
    const start = tree.emptyCondition();
    const withPlan = tree.replaceGroup(start, 0, tree.addFilter(start.groups[0]!, plan));
    expect(withPlan).toEqual({ logic: 'AND', groups: [{ filters: [plan] }] });
    expect(start).toEqual(tree.emptyCondition());

    const two = tree.addGroup(withPlan);
    expect(two.groups).toHaveLength(2);
    expect(tree.toggleLogic(two).logic).toBe('OR');
    expect(tree.toggleLogic(tree.toggleLogic(two)).logic).toBe('AND');

    const replaced = tree.replaceFilter(withPlan.groups[0]!, 0, seats);
    expect(replaced.filters).toEqual([seats]);
    expect(tree.removeFilter(replaced, 0).filters).toEqual([]);
    expect(tree.removeGroup(two, 0).groups).toEqual([{ filters: [] }]);
    // A condition keeps one group: removing the last empties it.
    expect(tree.removeGroup(withPlan, 0)).toEqual({ logic: 'AND', groups: [{ filters: [] }] });
  });

  it('nests an OR of two groups in a group, and takes it away again', () => {
    const nested = tree.nestCondition({ filters: [plan] });
    expect(nested).toEqual({
      filters: [plan],
      conditions: { logic: 'OR', groups: [{ filters: [] }, { filters: [] }] },
    });
    expect(tree.setNested(nested, undefined)).toEqual({ filters: [plan] });
  });

  it('drops groups that hold nothing before counting or saving, keeping one for "every contact"', () => {
    const built: FilterCondition = {
      logic: 'OR',
      groups: [
        { filters: [plan], conditions: { logic: 'OR', groups: [{ filters: [] }, { filters: [seats] }] } },
        { filters: [] },
        { filters: [], conditions: { logic: 'AND', groups: [{ filters: [] }] } },
      ],
    };
    expect(tree.pruneEmpty(built)).toEqual({
      logic: 'OR',
      groups: [{ filters: [plan], conditions: { logic: 'OR', groups: [{ filters: [seats] }] } }],
    });
    expect(tree.pruneEmpty(tree.emptyCondition())).toEqual(tree.emptyCondition());
    expect(tree.countFilters(built)).toBe(2);
  });

  it('resets the value and unit when the field or the operator changes', () => {
    const window: Filter = { field: 'createdAt', operator: 'within', value: 7, unit: 'hours' };
    expect(tree.withOperator(window, 'olderThan')).toEqual({ field: 'createdAt', operator: 'olderThan', unit: 'days' });
    expect(tree.withOperator(plan, 'notEquals')).toEqual({ field: 'data.plan', operator: 'notEquals' });
    expect(tree.filterFor(field('data.seats', 'number'))).toEqual({ field: 'data.seats', operator: 'equals' });
    expect(tree.filterFor(field('data.vip', 'boolean'))).toEqual({
      field: 'data.vip',
      operator: 'equals',
      value: true,
    });
    expect(tree.filterFor({ field: 'login', label: 'login', kind: 'event' })).toEqual({
      field: 'login',
      operator: 'triggered',
    });
    const id = '5f0c6e0e-1b7a-4d8e-9a37-2f4c1d0b9e11';
    expect(tree.filterFor({ field: 'segment', label: 'VIP', kind: 'segment', segmentId: id })).toEqual({
      field: 'segment',
      operator: 'memberOfSegment',
      value: id,
    });
  });

  it('reports what is wrong by path, telling missing values from wrong ones', () => {
    const condition: FilterCondition = {
      logic: 'AND',
      groups: [
        {
          filters: [
            { field: '', operator: 'equals' },
            { field: 'createdAt', operator: 'within', value: 0, unit: 'days' },
          ],
          conditions: { logic: 'OR', groups: [{ filters: [{ field: 'data.plan', operator: 'equals' }] }] },
        },
      ],
    };
    const issues = tree.treeIssues(condition);
    expect(issues).toContainEqual(expect.objectContaining({ path: 'groups.0.filters.0.field', missing: true }));
    expect(issues).toContainEqual({
      path: 'groups.0.filters.1.value',
      message: 'Must be greater than 0',
      missing: false,
    });
    expect(issues).toContainEqual(
      expect.objectContaining({ path: 'groups.0.conditions.groups.0.filters.0.value', missing: true }),
    );
    expect(tree.treeIssues({ logic: 'AND', groups: [{ filters: [plan] }] })).toEqual([]);
    // A workflow's condition may read the execution's context; a segment's may not.
    const context: FilterCondition = { logic: 'AND', groups: [{ filters: [{ ...plan, field: 'context.plan' }] }] };
    expect(tree.treeIssues(context, true)).toEqual([]);
    expect(tree.treeIssues(context)).toContainEqual(expect.objectContaining({ path: 'groups.0.filters.0.field' }));
  });
});

describe('operators in words, read from the registry', () => {
  it('offers every operator of the registry for some field, each with words', () => {
    const offered = new Set(
      [
        ...(['string', 'number', 'boolean', 'date'] as const).map((t) => field('data.x', t)),
        { field: 'login', label: 'login', kind: 'event' as const },
        { field: 'segment', label: 'VIP', kind: 'segment' as const },
        { field: 'topic', label: 'Launches', kind: 'topic' as const },
      ].flatMap(operatorsFor),
    );
    expect([...offered].sort()).toEqual([...OPERATORS].sort());
    for (const op of OPERATORS) expect(operatorLabel(op)).toMatch(/^[a-z]/);
  });

  it('offers each kind only its own operators, and standard fields what the registry allows them', () => {
    for (const op of operatorsFor({ field: 'login', label: 'login', kind: 'event' }))
      expect(OPERATOR_SPECS[op].kind).toBe('event');
    expect(operatorsFor(field('subscribed', 'boolean'))).toEqual([...STANDARD_FIELD_OPERATORS.subscribed]);
    expect(operatorsFor(field('data.vip', 'boolean'))).toEqual(['equals', 'notEquals', 'exists', 'notExists']);
    expect(operatorsFor(field('data.seats', 'number'))).not.toContain('contains');
    expect(operatorsFor(field('data.renewsOn', 'date'))).toContain('within');
  });

  it('says each operator as the field type reads', () => {
    expect(operatorLabel('greaterThan', 'number')).toBe('is more than');
    expect(operatorLabel('greaterThan', 'date')).toBe('is after');
    expect(operatorLabel('equals', 'date')).toBe('is on');
    expect(operatorLabel('triggeredOlderThan')).toBe('happened more than … ago');
    expect(operatorLabel('notTriggeredWithin')).toBe('has not happened in the last…');
  });

  it('finds the choice a stored filter stands for, or keeps an unknown one readable', () => {
    const choices: FieldChoice[] = [field('data.plan', 'string'), { field: 'login', label: 'login', kind: 'event' }];
    expect(choiceOf(plan, choices)).toBe(choices[0]);
    expect(choiceOf({ field: 'data.gone', operator: 'exists' }, choices)).toMatchObject({
      label: 'gone',
      kind: 'field',
    });
    expect(choiceOf({ field: 'segment', operator: 'memberOfSegment', value: 'x' }, choices)).toMatchObject({
      label: 'A deleted segment',
    });
  });

  it('writes the live count with its margins when sampled', () => {
    expect(matchWords({ total: 1204, subscribed: 1150 })).toBe('1,204 match · 1,150 subscribed');
    expect(matchWords({ total: 1204, subscribed: 1150, margin: 35, subscribedMargin: 34 })).toBe(
      'about 1,204 (± 35) match · about 1,150 (± 34) subscribed',
    );
  });

  it('searches the picker by label or field, leaving out empty groups', () => {
    const groups = [
      { label: 'Custom data', choices: [field('data.plan', 'string'), field('data.seats', 'number')] },
      { label: 'Events', choices: [] },
    ];
    expect(searchChoices(groups, '').map((g) => g.label)).toEqual(['Custom data']);
    expect(searchChoices(groups, 'SEA')[0]!.choices.map((c) => c.field)).toEqual(['data.seats']);
    expect(searchChoices(groups, 'nothing')).toEqual([]);
  });
});

describe('the segment form', () => {
  it('finds the addresses in a paste or a CSV, each once', () => {
    expect(form.addressesIn('Ada <ada@example.com>, b@example.com\nADA@example.com; nope')).toEqual([
      'ada@example.com',
      'b@example.com',
    ]);
    expect(form.addressesIn('name,email\n"Lovelace, Ada",ada@example.com\nGrace,grace@example.com\n')).toEqual([
      'ada@example.com',
      'grace@example.com',
    ]);
    expect(form.addressesIn('')).toEqual([]);
  });

  it('sends batches the API accepts', () => {
    const many = Array.from({ length: 2500 }, (_, i) => `${i}@example.com`);
    expect(form.batches(many).map((b) => b.length)).toEqual([1000, 1000, 500]);
  });

  it('puts the server’s field errors beside the form fields or the filters', () => {
    expect(
      form.splitErrors([
        { field: 'name', message: 'Too long', code: 'too_big' },
        { field: 'condition', message: 'Unknown segment', code: 'unknown_segment' },
        { field: 'condition.groups.0.filters.1.value', message: 'Required', code: 'invalid_type' },
      ]),
    ).toEqual({
      form: { name: 'Too long' },
      tree: { '': 'Unknown segment', 'groups.0.filters.1.value': 'Required' },
    });
  });

  it('saves a dynamic segment’s condition without empty groups, and no condition for a static one', () => {
    const condition: FilterCondition = { logic: 'AND', groups: [{ filters: [plan] }, { filters: [] }] };
    const base = { ...form.EMPTY_FORM, name: 'Pro', condition };
    expect(form.segmentPayload(base, true)).toEqual({
      name: 'Pro',
      description: null,
      type: 'DYNAMIC',
      condition: { logic: 'AND', groups: [{ filters: [plan] }] },
      trackMembership: false,
    });
    expect(form.segmentPayload({ ...base, type: 'STATIC' }, false)).toEqual({
      name: 'Pro',
      description: null,
      trackMembership: false,
    });
    expect(form.changeWords({ added: 1200, removed: 3, total: 5000 })).toBe('1,200 added · 3 removed · 5,000 in total');
  });
});
