import { describe, expect, it } from 'vitest';
import * as deliveries from '../../web/src/pages/webhooks/delivery-list.js';
import * as events from '../../web/src/pages/webhooks/webhook-events.js';
import { expectListInAddress, expectPagesAsked } from '../support/list-address.js';

describe('a webhook’s events in the form', () => {
  it('every event is `*` alone, whatever else is ticked or typed', () => {
    expect(events.eventsFromChoice({ all: true, chosen: ['email.sent'], other: 'signed_up' })).toEqual(['*']);
  });

  it('service events in the form’s order, then typed names and prefixes, without repeats', () => {
    const choice = {
      all: false,
      chosen: ['contact.subscribed', 'email.bounced'],
      other: 'signed_up,  segment.*\nsigned_up',
    };
    expect(events.eventsFromChoice(choice)).toEqual(['email.bounced', 'contact.subscribed', 'signed_up', 'segment.*']);
  });

  it('reads a webhook back into the form: known names ticked, the rest typed out', () => {
    expect(events.choiceFromEvents(['email.sent', 'signed_up', 'segment.*'])).toEqual({
      all: false,
      chosen: ['email.sent'],
      other: 'signed_up, segment.*',
    });
    expect(events.choiceFromEvents(['*'])).toEqual({ all: true, chosen: [], other: '' });
    const round = events.choiceFromEvents(['email.opened', 'order.paid']);
    expect(events.eventsFromChoice(round)).toEqual(['email.opened', 'order.paid']);
  });

  it('takes what the server takes: a name, a prefix ending in .*, or *', () => {
    for (const ok of ['*', 'signed_up', 'email.*', 'segment.vip.entry', 'a.b.*'])
      expect(events.isEventPattern(ok)).toBe(true);
    for (const bad of ['email*', '*.sent', 'a.*.b', 'two words', '', 'x'.repeat(256)]) {
      expect(events.isEventPattern(bad)).toBe(false);
    }
  });

  it('says what is wrong: nothing chosen, a bad name, too many', () => {
    expect(events.eventsProblem(events.NO_EVENTS)).toBe('Choose at least one event.');
    expect(events.eventsProblem({ all: false, chosen: [], other: 'ok, bad*name' })).toContain('bad*name');
    const many = Array.from({ length: 51 }, (_, i) => `e${i}`).join(',');
    expect(events.eventsProblem({ all: false, chosen: [], other: many })).toContain('At most 50');
    expect(events.eventsProblem({ all: true, chosen: [], other: 'bad*name' })).toBeNull();
    expect(events.eventsProblem({ all: false, chosen: ['email.sent'], other: '' })).toBeNull();
  });

  it('checks the URL: whole, http or https', () => {
    expect(events.urlProblem('')).toContain('Enter the URL');
    expect(events.urlProblem('example.com/hook')).toContain('whole URL');
    expect(events.urlProblem('ftp://example.com/hook')).toBe('Use an http or https URL.');
    expect(events.urlProblem(' https://example.com/hook ')).toBeNull();
    expect(events.urlProblem(`https://example.com/${'a'.repeat(2048)}`)).toContain('2,048');
  });

  it('describes a subscription briefly', () => {
    expect(events.describeEvents(['*'])).toBe('Every event');
    expect(events.describeEvents(['a', 'b'])).toBe('a, b');
    expect(events.describeEvents(['a', 'b', 'c', 'd', 'e'])).toBe('a, b, c and 2 more');
  });
});

describe('the deliveries list', () => {
  it('keeps its filter and page in the URL, defaults left out', () => {
    expectListInAddress(
      {
        parse: deliveries.parseDeliveryList,
        toQuery: deliveries.deliveryListToQuery,
        first: deliveries.FIRST_DELIVERIES,
      },
      { state: { status: 'failed', page: 3 }, query: 'status=failed&page=3' },
      ['status=lost&page=-2', 'page=1.5'],
    );
  });

  it('asks the API for the page and the status only when filtered', () => {
    expectPagesAsked(deliveries.deliveriesApiQuery, 25, [
      { state: { status: null, page: 2 }, asked: { page: 2, pageSize: 25 } },
      { state: { status: 'pending', page: 1 }, asked: { page: 1, pageSize: 25, status: 'pending' } },
    ]);
  });

  it('tells the receiver’s answer in words', () => {
    const base = { status: 'pending' as const, responseStatus: null, lastError: null, attempts: 0 };
    expect(deliveries.responseSummary(base)).toBe('Not attempted yet');
    expect(deliveries.responseSummary({ ...base, status: 'delivered', responseStatus: 204, attempts: 1 })).toBe(
      'HTTP 204',
    );
    expect(
      deliveries.responseSummary({
        ...base,
        attempts: 2,
        responseStatus: 503,
        lastError: 'POST http://h/x answered 503',
      }),
    ).toBe('POST http://h/x answered 503');
    expect(deliveries.responseSummary({ ...base, status: 'failed', attempts: 1, lastError: 'ECONNREFUSED' })).toBe(
      'ECONNREFUSED',
    );
    expect(
      deliveries.responseSummary({ ...base, status: 'failed', attempts: 1, responseStatus: 410, lastError: 'Gone' }),
    ).toBe('HTTP 410: Gone');
  });

  it('is asked again while a delivery is being retried', () => {
    expect(deliveries.hasPending([{ status: 'delivered' }, { status: 'pending' }])).toBe(true);
    expect(deliveries.hasPending([{ status: 'delivered' }, { status: 'failed' }])).toBe(false);
  });
});
