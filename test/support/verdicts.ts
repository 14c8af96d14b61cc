import type { z } from 'zod';
import type { verify } from '../../src/api.js';

export type AddressVerdict = z.infer<typeof verify.verifyResultSchema>;

/**
 * The whole verdict on `email`, as `/v1/verify` gives it: that of a deliverable address on an
 * ordinary domain (NS, MX and A records, on no list, no findings) with `overrides` on top.
 */
export function verdict(email: string, overrides: Partial<AddressVerdict> = {}): AddressVerdict {
  return {
    email,
    valid: true,
    isDisposable: false,
    isAlias: false,
    isTypo: false,
    isPlusAddressed: false,
    isPersonalEmail: false,
    domainExists: true,
    hasWebsite: true,
    hasMxRecords: true,
    reasons: [],
    ...overrides,
  };
}

/** The findings on a domain with no DNS records at all. */
export const NO_RECORDS: Partial<AddressVerdict> = {
  valid: false,
  domainExists: false,
  hasWebsite: false,
  hasMxRecords: false,
  reasons: [
    'Domain does not exist (no NS records)',
    'Domain has no MX records',
    'Domain has no website (no A or AAAA records)',
  ],
};
