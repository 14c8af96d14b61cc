import { describe, expect, it } from 'vitest';
import { readDmarcRecord, recommendedDmarc, withReportAddress } from '../../src/domain/dmarc-record.js';

describe('reading a DMARC record', () => {
  it('reads the policy, the subdomain policy, the percentage and the mailto report addresses', () => {
    expect(
      readDmarcRecord(
        'v=DMARC1; p=Reject; sp=quarantine; pct=25; rua=mailto:A@Example.com!10m, https://x.test/r,mailto:b%40x@y.test',
      ),
    ).toEqual({
      policy: 'reject',
      subdomainPolicy: 'quarantine',
      percent: 25,
      reportAddresses: ['a@example.com', 'b@x@y.test'],
    });
  });

  it('reads a record without p= or with an unknown one as p=none, and a wild pct as 100', () => {
    expect(readDmarcRecord('v=DMARC1; rua=mailto:r@x.test; pct=500')).toMatchObject({ policy: 'none', percent: 100 });
    expect(readDmarcRecord('v=DMARC1; p=block')).toMatchObject({ policy: 'none', reportAddresses: [] });
  });

  it('is null for text that is no DMARC record', () => {
    expect(readDmarcRecord('v=spf1 -all')).toBeNull();
    expect(readDmarcRecord('p=none; v=DMARC1')).toBeNull();
    expect(readDmarcRecord('')).toBeNull();
  });
});

describe('the recommended record', () => {
  it('monitors only, with reports when there is an address for them', () => {
    expect(recommendedDmarc('dmarc@bounces.x.test')).toBe('v=DMARC1; p=none; rua=mailto:dmarc@bounces.x.test');
    expect(recommendedDmarc(null)).toBe('v=DMARC1; p=none');
  });

  it('adds the address to a published record, as a further rua address or a new tag', () => {
    expect(withReportAddress('v=DMARC1; p=reject; rua=mailto:a@x.test', 'd@b.x.test')).toBe(
      'v=DMARC1; p=reject; rua=mailto:a@x.test,mailto:d@b.x.test',
    );
    expect(withReportAddress('v=DMARC1;p=quarantine;', 'd@b.x.test')).toBe(
      'v=DMARC1; p=quarantine; rua=mailto:d@b.x.test',
    );
  });
});
