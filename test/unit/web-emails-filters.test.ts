import { describe, expect, it } from 'vitest';
import {
  type EmailFilters,
  emailFiltersToQuery,
  emailsApiQuery,
  FIRST_PAGE,
  isFiltered,
  looksLikeAddress,
  nextPage,
  pageNumber,
  parseEmailFilters,
  previousPage,
  readTrail,
  withCriteria,
} from '../../web/src/pages/emails/email-filters.js';

const CAMPAIGN = '3f1c2a4e-8b7d-4c6e-9a1b-2d3e4f5a6b7c';

describe('the emails list state in the URL', () => {
  it('a clean list has a clean query string', () => {
    expect(parseEmailFilters('')).toEqual(FIRST_PAGE);
    expect(emailFiltersToQuery(FIRST_PAGE)).toBe('');
  });

  it('round-trips every filter and the cursor', () => {
    const filters: EmailFilters = {
      status: 'bounced',
      to: 'ada+news@example.com',
      campaignId: CAMPAIGN,
      cursor: 'abc=',
    };
    const query = emailFiltersToQuery(filters);
    expect(query).toBe(`status=bounced&to=ada%2Bnews%40example.com&campaignId=${CAMPAIGN}&cursor=abc%3D`);
    expect(parseEmailFilters(`?${query}`)).toEqual(filters);
  });

  it('drops a status the API does not know, and trims the recipient', () => {
    expect(parseEmailFilters('status=delivered&to=%20ada@example.com%20')).toEqual({
      ...FIRST_PAGE,
      to: 'ada@example.com',
    });
    expect(parseEmailFilters('status=&campaignId=&cursor=')).toEqual(FIRST_PAGE);
  });

  it('asks GET /emails only for what is set', () => {
    expect(emailsApiQuery(FIRST_PAGE, 50)).toEqual({ limit: 50 });
    expect(emailsApiQuery({ status: 'sent', to: ' bob@example.com ', campaignId: CAMPAIGN, cursor: 'c1' }, 25)).toEqual(
      {
        limit: 25,
        status: 'sent',
        to: 'bob@example.com',
        campaignId: CAMPAIGN,
        cursor: 'c1',
      },
    );
  });

  it('knows when the list is narrowed (the cursor is not a filter)', () => {
    expect(isFiltered({ ...FIRST_PAGE, cursor: 'c1' })).toBe(false);
    expect(isFiltered({ ...FIRST_PAGE, status: 'failed' })).toBe(true);
    expect(isFiltered({ ...FIRST_PAGE, to: 'a@b.c' })).toBe(true);
    expect(isFiltered({ ...FIRST_PAGE, campaignId: CAMPAIGN })).toBe(true);
  });
});

describe('paging the emails list', () => {
  it('a new filter starts again from page one', () => {
    const on3 = { ...FIRST_PAGE, status: 'sent' as const, cursor: 'c2' };
    expect(withCriteria(on3, { to: 'ada@example.com' })).toEqual({
      filters: { ...on3, to: 'ada@example.com', cursor: null },
      trail: [],
    });
  });

  it('goes forward and back through the cursors it came by', () => {
    const one = nextPage(FIRST_PAGE, [], 'c1');
    expect(one).toEqual({ filters: { ...FIRST_PAGE, cursor: 'c1' }, trail: [null] });
    const two = nextPage(one.filters, one.trail, 'c2');
    expect(pageNumber(two.filters, two.trail)).toBe(3);
    const back = previousPage(two.filters, two.trail);
    expect(back).toEqual(one);
    expect(previousPage(back.filters, back.trail)).toEqual({ filters: FIRST_PAGE, trail: [] });
  });

  it('from a pasted link, the page number is unknown and previous leads to page one', () => {
    const pasted = { ...FIRST_PAGE, cursor: 'c5' };
    expect(pageNumber(pasted, [])).toBeNull();
    expect(previousPage(pasted, []).filters.cursor).toBeNull();
  });

  it('reads a trail from the history state, or none', () => {
    expect(readTrail({ trail: [null, 'c1'] })).toEqual([null, 'c1']);
    expect(readTrail({ trail: [1] })).toEqual([]);
    expect(readTrail(null)).toEqual([]);
  });
});

describe('the recipient filter', () => {
  it('takes whole addresses only', () => {
    expect(looksLikeAddress('ada@example.com')).toBe(true);
    expect(looksLikeAddress(' ada@example.com ')).toBe(true);
    expect(looksLikeAddress('ada')).toBe(false);
    expect(looksLikeAddress('@example.com')).toBe(false);
    expect(looksLikeAddress('ada @example.com')).toBe(false);
  });
});
