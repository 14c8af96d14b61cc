import type { EmailRecord } from '../../src/api.js';

/**
 * An email record's fields for what may happen once it is handed over (a failure, opens, clicks, a
 * bounce, a complaint), as they stand while none of it has happened.
 */
export const NO_FAILURE_OR_FEEDBACK = {
  failedAt: null,
  openedAt: null,
  clickedAt: null,
  bouncedAt: null,
  bounceType: null,
  complainedAt: null,
  openCount: 0,
  clickCount: 0,
} satisfies Partial<EmailRecord>;
