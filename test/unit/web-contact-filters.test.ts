import { describe, expect, it } from 'vitest';
import {
  contactFiltersToQuery,
  contactsApiQuery,
  FIRST_PAGE,
  nextPage,
  pageNumber,
  parseContactFilters,
  parseSortValue,
  previousPage,
  readTrail,
  SORT_OPTIONS,
  sortValue,
  withCriteria,
} from '../../web/src/pages/contacts/contact-filters.js';
import { contactName, subscriptionLabel } from '../../web/src/pages/contacts/contact-format.js';

describe('the contacts list keeps its state in the query string', () => {
  it('reads and writes search, subscription and cursor, leaving defaults out', () => {
    const filters = parseContactFilters('?q=%20ann%40example&subscribed=false&cursor=abc');
    expect(filters).toEqual({
      search: 'ann@example',
      subscribed: 'unsubscribed',
      sort: 'createdAt',
      dir: 'desc',
      cursor: 'abc',
    });
    expect(contactFiltersToQuery(filters)).toBe('q=ann%40example&subscribed=false&cursor=abc');
    expect(parseContactFilters(contactFiltersToQuery(filters))).toEqual(filters);
    expect(contactFiltersToQuery(FIRST_PAGE)).toBe('');
    expect(parseContactFilters('')).toEqual(FIRST_PAGE);
  });

  it('treats an unknown subscription value as no filter', () => {
    expect(parseContactFilters('subscribed=maybe').subscribed).toBe('all');
    expect(parseContactFilters('subscribed=true').subscribed).toBe('subscribed');
  });

  it('asks the API for one page with only the criteria that are set', () => {
    expect(contactsApiQuery(FIRST_PAGE, 50)).toEqual({ limit: 50 });
    expect(contactsApiQuery({ ...FIRST_PAGE, search: ' bob ', subscribed: 'subscribed', cursor: 'c2' }, 50)).toEqual({
      limit: 50,
      search: 'bob',
      subscribed: true,
      cursor: 'c2',
    });
    expect(contactsApiQuery({ ...FIRST_PAGE, subscribed: 'unsubscribed' }, 20).subscribed).toBe(false);
  });

  it('keeps the order in the URL, leaving out the default of newest first', () => {
    const byEmail = parseContactFilters('sort=email&dir=asc&q=x');
    expect(byEmail).toMatchObject({ sort: 'email', dir: 'asc', search: 'x' });
    expect(contactFiltersToQuery(byEmail)).toBe('q=x&sort=email&dir=asc');
    expect(contactFiltersToQuery({ ...FIRST_PAGE, dir: 'asc' })).toBe('dir=asc');
    expect(contactFiltersToQuery({ ...FIRST_PAGE, sort: 'email' })).toBe('sort=email');
    // Unknown orders fall back to the default, as the API does.
    expect(parseContactFilters('sort=name&dir=up')).toEqual(FIRST_PAGE);
  });

  it('asks the API for an order only when it is not the default', () => {
    expect(contactsApiQuery({ ...FIRST_PAGE, sort: 'email', dir: 'asc' }, 50)).toEqual({
      limit: 50,
      sort: 'email',
      dir: 'asc',
    });
    expect(contactsApiQuery({ ...FIRST_PAGE, dir: 'asc' }, 50)).toEqual({ limit: 50, dir: 'asc' });
  });

  it('chooses the order with one select, and a new order starts at page one', () => {
    for (const option of SORT_OPTIONS) expect(sortValue(parseSortValue(option.value))).toBe(option.value);
    expect(parseSortValue('email:desc')).toEqual({ sort: 'email', dir: 'desc' });
    expect(parseSortValue('nonsense')).toEqual({ sort: 'createdAt', dir: 'desc' });
    const later = { ...FIRST_PAGE, search: 'a', cursor: 'c3' };
    expect(withCriteria(later, parseSortValue('email:asc'))).toEqual({
      filters: { ...FIRST_PAGE, search: 'a', sort: 'email', dir: 'asc', cursor: null },
      trail: [],
    });
  });

  it('pages forward and back through cursors, and a new search starts at page one', () => {
    const one = { filters: { ...FIRST_PAGE, search: 'a' }, trail: [] };
    const two = nextPage(one.filters, one.trail, 'c2');
    const three = nextPage(two.filters, two.trail, 'c3');
    expect(three.filters.cursor).toBe('c3');
    expect(three.trail).toEqual([null, 'c2']);
    expect(pageNumber(three.filters, three.trail)).toBe(3);

    const back = previousPage(three.filters, three.trail);
    expect(back).toEqual(two);
    const first = previousPage(back.filters, back.trail);
    expect(first.filters.cursor).toBeNull();
    expect(pageNumber(first.filters, first.trail)).toBe(1);

    expect(withCriteria(three.filters, { subscribed: 'subscribed' })).toEqual({
      filters: { search: 'a', subscribed: 'subscribed', sort: 'createdAt', dir: 'desc', cursor: null },
      trail: [],
    });
  });

  it('goes back to the first page from a pasted link, which has no trail', () => {
    const pasted = parseContactFilters('cursor=c9');
    expect(pageNumber(pasted, [])).toBeNull();
    expect(previousPage(pasted, []).filters.cursor).toBeNull();
  });

  it('accepts only a list of cursors as a trail from history state', () => {
    expect(readTrail({ trail: [null, 'c2'] })).toEqual([null, 'c2']);
    expect(readTrail({ trail: [1, 2] })).toEqual([]);
    expect(readTrail(null)).toEqual([]);
    expect(readTrail('trail')).toEqual([]);
  });
});

describe('contacts are shown in words', () => {
  it('finds a name under the usual keys', () => {
    expect(contactName({ name: ' Ann Lee ' })).toBe('Ann Lee');
    expect(contactName({ firstName: 'Ann', lastName: 'Lee' })).toBe('Ann Lee');
    expect(contactName({ first_name: 'Bo' })).toBe('Bo');
    expect(contactName({ name: 42, plan: 'pro' })).toBeNull();
  });

  it('names the subscription state, snoozed included', () => {
    expect(subscriptionLabel({ subscribed: true, snoozedUntil: null })).toBe('Subscribed');
    expect(subscriptionLabel({ subscribed: false, snoozedUntil: null })).toBe('Unsubscribed');
    expect(subscriptionLabel({ subscribed: false, snoozedUntil: '2030-01-01T00:00:00.000Z' })).toBe('Snoozed');
  });
});
