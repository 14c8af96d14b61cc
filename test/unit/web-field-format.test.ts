import { describe, expect, it } from 'vitest';
import {
  coverageText,
  fieldDisplayName,
  fieldTypeLabel,
  fieldValueText,
  hasListableValues,
  isDeletable,
  usageGroups,
  usageWarning,
} from '../../web/src/pages/contacts/field-format.js';

const none = { segments: [], campaigns: [], workflows: [] };

describe('the contact fields page tells fields in words', () => {
  it('names types and fields as people know them', () => {
    expect(fieldTypeLabel('string')).toBe('Text');
    expect(fieldTypeLabel('number')).toBe('Number');
    expect(fieldTypeLabel('boolean')).toBe('Yes/no');
    expect(fieldTypeLabel('geo')).toBe('geo');
    expect(fieldDisplayName({ field: 'data.plan', isCustom: true })).toBe('plan');
    expect(fieldDisplayName({ field: 'email', isCustom: false })).toBe('email');
  });

  it('gives coverage as a share, and as a count once the total is known', () => {
    expect(coverageText(0.5, null)).toBe('50%');
    expect(coverageText(0.625, 200)).toBe('62.5% · 125 of 200 contacts');
    expect(coverageText(1, 1)).toBe('100% · 1 of 1 contact');
    expect(coverageText(0, 0)).toBe('No contacts yet');
    expect(coverageText(0.3333, 3)).toBe('33.3% · 1 of 3 contacts');
  });

  it('lists values of every field but createdAt, and deletes only custom fields', () => {
    expect(hasListableValues({ field: 'createdAt', isCustom: false })).toBe(false);
    expect(hasListableValues({ field: 'subscribed', isCustom: false })).toBe(true);
    expect(hasListableValues({ field: 'data.createdAt', isCustom: true })).toBe(true);
    expect(isDeletable({ isCustom: true })).toBe(true);
    expect(isDeletable({ isCustom: false })).toBe(false);
  });

  it('shows values bare when text, as JSON otherwise', () => {
    expect(fieldValueText('pro')).toBe('pro');
    expect(fieldValueText('')).toBe('(empty text)');
    expect(fieldValueText(12)).toBe('12');
    expect(fieldValueText(true)).toBe('true');
    expect(fieldValueText({ a: 1 })).toBe('{"a":1}');
  });

  it('says what uses a field, leaving out kinds with nothing', () => {
    expect(usageGroups(none)).toEqual([]);
    expect(usageWarning(none)).toBeNull();
    const usage = {
      segments: [
        { id: '1', name: 'Pro users' },
        { id: '2', name: 'Trials' },
      ],
      campaigns: [{ id: '3', name: 'Launch' }],
      workflows: [],
    };
    expect(usageGroups(usage)).toEqual([
      { kind: 'Segments', names: ['Pro users', 'Trials'] },
      { kind: 'Campaigns', names: ['Launch'] },
    ]);
    expect(usageWarning(usage)).toBe('Used by 2 segments and 1 campaign.');
    expect(usageWarning({ ...none, workflows: [{ id: '4', name: 'Onboarding' }] })).toBe('Used by 1 workflow.');
    expect(
      usageWarning({ segments: usage.segments, campaigns: usage.campaigns, workflows: [{ id: '4', name: 'W' }] }),
    ).toBe('Used by 2 segments, 1 campaign and 1 workflow.');
  });
});
