/**
 * The segment of the segment benchmarks (bench/segment-count.ts, bench/segment-live-count.ts): a
 * `data` number comparison AND a text `contains` AND `triggeredWithin 30 days`, over contacts and
 * events seeded by bench/seed.ts with these event kinds.
 */
import type { FilterCondition } from '../src/domain/filters/index.js';
import type { EventKinds } from './seed.js';

export const AGE_OVER = 30;
export const CITY_PART = 'on'; // London, Toronto, Barcelona, Boston, Lisbon, Montreal, San Antonio: about 23 %
export const EVENT_NAME = 'purchase';
export const WINDOW_DAYS = 30;

/**
 * page_view 45 %, login 18 %, email_opened 14 %, add_to_cart 8 %, purchase 12 % (with an amount),
 * subscription_renewed 3 %.
 */
export const EVENT_KINDS: EventKinds = {
  seed: 0.42,
  name: `case when r.kind < 0.45 then 'page_view' when r.kind < 0.63 then 'login'
               when r.kind < 0.77 then 'email_opened' when r.kind < 0.85 then 'add_to_cart'
               when r.kind < 0.97 then 'purchase' else 'subscription_renewed' end`,
  data: `case when x.name = 'purchase' then jsonb_build_object('amount', round((5 + r.amount * 195)::numeric, 2)) else '{}' end`,
};

/** The three conditions in one group; `ageOver` varies the first, as a marketer typing would. */
export function threeConditions(ageOver = AGE_OVER): FilterCondition {
  return {
    logic: 'AND',
    groups: [
      {
        filters: [
          { field: 'data.age', operator: 'greaterThan', value: ageOver },
          { field: 'data.city', operator: 'contains', value: CITY_PART },
          { field: EVENT_NAME, operator: 'triggeredWithin', value: WINDOW_DAYS, unit: 'days' },
        ],
      },
    ],
  };
}
