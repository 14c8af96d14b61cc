import { describe, expect, it } from 'vitest';
import * as contactData from '../../src/domain/contact-data.js';

describe('parseDataPatch', () => {
  it('sorts keys into stored, deleted and one-send values, dropping reserved keys and empty strings', () => {
    const patch = contactData.parseDataPatch({
      plan: 'pro',
      age: 42,
      vip: false,
      gone: null,
      blank: '',
      coupon: { value: 'X1', persistent: false },
      id: 'x',
      svc_id: 'x',
      svc_email: 'x',
      email: 'x',
      unsubscribeUrl: 'x',
      subscribeUrl: 'x',
      manageUrl: 'x',
    });
    expect(patch).toEqual({ set: { plan: 'pro', age: 42, vip: false }, unset: ['gone'], transient: { coupon: 'X1' } });
  });

  it('stores an object that only looks like a one-send value', () => {
    expect(contactData.parseDataPatch({ a: { value: 1, persistent: true } }).set).toEqual({
      a: { value: 1, persistent: true },
    });
    expect(contactData.parseDataPatch({ a: { value: 1, persistent: false, extra: 1 } }).set).toEqual({
      a: { value: 1, persistent: false, extra: 1 },
    });
  });

  it('accepts a missing data object', () => {
    expect(contactData.parseDataPatch(undefined)).toEqual({ set: {}, unset: [], transient: {} });
  });
});

describe('applyDataPatch and contactData.renderData', () => {
  it('patches: keeps unsent keys, overwrites sent ones, deletes nulls, never stores one-send values', () => {
    const stored = contactData.applyDataPatch(
      { a: 1, b: 2, c: 3 },
      contactData.parseDataPatch({ b: 20, c: null, d: '', t: { value: 9, persistent: false } }),
    );
    expect(stored).toEqual({ a: 1, b: 20 });
    expect(contactData.renderData(stored, contactData.parseDataPatch({ t: { value: 9, persistent: false } }))).toEqual({
      a: 1,
      b: 20,
      t: 9,
    });
  });
});

describe('inferFieldType', () => {
  it.each([
    [42, 'number'],
    [3.14, 'number'],
    [true, 'boolean'],
    ['2024-05-01', 'date'],
    ['2024-05-01T10:20:30Z', 'date'],
    ['2024-05-01T10:20:30.123Z', 'date'],
    ['2024-13-45', 'string'],
    ['2024-05-01T10:20:30+02:00', 'string'],
    ['42', 'string'],
    [{ nested: 1 }, 'string'],
    [[1, 2], 'string'],
  ])('%j is %s', (value, type) => {
    expect(contactData.inferFieldType(value)).toBe(type);
  });

  it('has no type for null', () => {
    expect(contactData.inferFieldType(null)).toBeNull();
    expect(contactData.inferPatchTypes(contactData.parseDataPatch({ a: null, b: 1 }))).toEqual({ b: 'number' });
  });
});

describe('mergeDataPatches', () => {
  it('has the effect of applying both patches in order', () => {
    const first = contactData.parseDataPatch({ a: 1, b: 2, c: null, t: { value: 1, persistent: false } });
    const second = contactData.parseDataPatch({ b: null, c: 3, d: 4, t: { value: 2, persistent: false } });
    const merged = contactData.mergeDataPatches(first, second);
    const start = { b: 0, c: 0, z: 9 };
    expect(contactData.applyDataPatch(start, merged)).toEqual(
      contactData.applyDataPatch(contactData.applyDataPatch(start, first), second),
    );
    expect(merged.transient).toEqual({ t: 2 });
  });
});
