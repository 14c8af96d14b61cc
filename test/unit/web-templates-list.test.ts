import { describe, expect, it } from 'vitest';
import * as list from '../../web/src/pages/templates/template-list.js';

describe('the templates list keeps its state in the query string', () => {
  it('reads and writes type, search, order and page, leaving defaults out', () => {
    const state = list.parseTemplateList('?type=TRANSACTIONAL&q=%20welcome%20&sort=name&dir=asc&page=3');
    expect(state).toEqual({ type: 'TRANSACTIONAL', search: 'welcome', sort: 'name', dir: 'asc', page: 3 });
    expect(list.templateListToQuery(state)).toBe('type=TRANSACTIONAL&q=welcome&sort=name&dir=asc&page=3');
    expect(list.parseTemplateList(list.templateListToQuery(state))).toEqual(state);
    expect(list.templateListToQuery(list.DEFAULT_LIST)).toBe('');
    expect(list.parseTemplateList('')).toEqual(list.DEFAULT_LIST);
  });

  it('ignores values it does not know instead of sending them', () => {
    expect(list.parseTemplateList('type=SPAM&sort=size&dir=up&page=-2')).toEqual(list.DEFAULT_LIST);
    expect(list.parseTemplateList('page=2.5').page).toBe(1);
    expect(list.parseTemplateList('page=abc').page).toBe(1);
  });

  it('asks GET /templates for one page with only the criteria that are set', () => {
    expect(list.templatesApiQuery(list.DEFAULT_LIST, 20)).toEqual({
      page: 1,
      pageSize: 20,
      sort: 'updatedAt',
      dir: 'desc',
    });
    expect(list.templatesApiQuery({ ...list.DEFAULT_LIST, type: 'HEADLESS', search: ' a ', page: 2 }, 20)).toEqual({
      page: 2,
      pageSize: 20,
      sort: 'updatedAt',
      dir: 'desc',
      type: 'HEADLESS',
      search: 'a',
    });
  });

  it('starts again from page one when the criteria change', () => {
    expect(list.withCriteria({ ...list.DEFAULT_LIST, page: 4 }, { search: 'x' })).toEqual({
      ...list.DEFAULT_LIST,
      search: 'x',
    });
  });

  it('offers each sort as one choice of field and direction', () => {
    for (const option of list.SORT_OPTIONS)
      expect(list.parseSortKey(list.sortKey(option))).toEqual({ sort: option.sort, dir: option.dir });
    expect(list.parseSortKey('nonsense')).toEqual({ sort: 'updatedAt', dir: 'desc' });
  });
});

describe('numbered pages', () => {
  it('shows every page when there are few', () => {
    expect(list.pageItems(1, 1)).toEqual([]);
    expect(list.pageItems(2, 5)).toEqual([1, 2, 3, 4, 5]);
  });

  it('shows the first, the last and the neighbours of the current one, with gaps', () => {
    expect(list.pageItems(10, 20)).toEqual([1, 'gap', 9, 10, 11, 'gap', 20]);
    expect(list.pageItems(1, 20)).toEqual([1, 2, 'gap', 20]);
    expect(list.pageItems(20, 20)).toEqual([1, 'gap', 19, 20]);
  });

  it('never hides a single page behind a gap', () => {
    expect(list.pageItems(4, 20)).toEqual([1, 2, 3, 4, 5, 'gap', 20]);
  });
});
