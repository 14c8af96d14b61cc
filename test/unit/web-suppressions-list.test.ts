import { describe, expect, it } from 'vitest';
import * as list from '../../web/src/pages/suppressions/suppression-list.js';
import { expectListInAddress, expectPagesAsked } from '../support/list-address.js';

describe('the suppression list state in the URL', () => {
  it('a plain list has a plain URL; a filtered page round-trips', () => {
    expectListInAddress(
      { parse: list.parseSuppressionList, toQuery: list.suppressionListToQuery, first: list.FIRST_SUPPRESSIONS },
      { state: { reason: 'complaint', page: 4 }, query: 'reason=complaint&page=4' },
    );
  });

  it('ignores what it does not know', () => {
    expect(list.parseSuppressionList('reason=spam&page=zero')).toEqual(list.FIRST_SUPPRESSIONS);
    expect(list.parseSuppressionList('page=0')).toEqual(list.FIRST_SUPPRESSIONS);
  });

  it('asks the API for one page, and the reason only when filtered', () => {
    expectPagesAsked(list.suppressionsApiQuery, 50, [
      { state: { reason: null, page: 1 }, asked: { page: 1, pageSize: 50 } },
      { state: { reason: 'bounce', page: 2 }, asked: { page: 2, pageSize: 50, reason: 'bounce' } },
    ]);
  });

  it('has a label for every reason', () => {
    expect(list.REASONS.map((r) => list.REASON_LABELS[r])).toEqual(['Hard bounce', 'Spam complaint', 'Added by hand']);
  });
});

describe('adding an address', () => {
  it('checks the address before asking', () => {
    expect(list.addressProblem('  ')).toBe('Enter an email address.');
    expect(list.addressProblem('ada')).toContain('whole address');
    expect(list.addressProblem('ada@example')).toContain('whole address');
    expect(list.addressProblem(' ada@example.com ')).toBeNull();
  });

  it('sends the note only when there is one, trimmed', () => {
    expect(list.addSuppressionBody(' ada@example.com ', '  ')).toEqual({ email: 'ada@example.com' });
    expect(list.addSuppressionBody('ada@example.com', ' asked by phone ')).toEqual({
      email: 'ada@example.com',
      detail: 'asked by phone',
    });
  });
});
