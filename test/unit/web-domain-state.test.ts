import { describe, expect, it } from 'vitest';
import type { DnsRecord } from '../../src/api.js';
import { recordStatusLabel, sendingState } from '../../web/src/pages/domains/domain-state.js';

const record = (purpose: DnsRecord['purpose'], status: DnsRecord['status'], required = true): DnsRecord => ({
  type: 'TXT',
  name: `${purpose}.example.com`,
  value: 'v',
  purpose,
  required,
  status,
  description: 'What the record is for.',
  step: 1,
  advice: null,
  dmarc: null,
});

const checked = '2025-06-15T12:00:00.000Z';

describe('a domain’s sending state in words', () => {
  it('says a verified domain is ready to send', () => {
    expect(sendingState({ verified: true, checkedAt: checked, records: [] })).toEqual({
      tone: 'ok',
      text: 'Verified: ready to send',
    });
  });

  it('names the required records it waits for, ignoring optional ones', () => {
    const dkimOnly = [record('dkim', 'pending'), record('verification', 'verified'), record('spf', 'pending', false)];
    expect(sendingState({ verified: false, checkedAt: checked, records: dkimOnly }).text).toBe(
      'Waiting for the DKIM record',
    );
    const both = [record('dkim', 'pending'), record('verification', 'pending')];
    expect(sendingState({ verified: false, checkedAt: checked, records: both }).text).toBe(
      'Waiting for the DKIM and ownership records',
    );
  });

  it('tells a failed lookup from a record not published yet, and a domain never checked', () => {
    const failed = sendingState({ verified: false, checkedAt: checked, records: [record('dkim', 'failed')] });
    expect(failed.tone).toBe('problem');
    expect(failed.text).toMatch(/lookup for the DKIM record failed/);
    expect(sendingState({ verified: false, checkedAt: null, records: [record('dkim', 'pending')] }).text).toMatch(
      /Not checked yet/,
    );
  });

  it('labels each record’s status', () => {
    expect(recordStatusLabel(record('dkim', 'verified'))).toBe('Found');
    expect(recordStatusLabel(record('dkim', 'pending'))).toBe('Not found yet');
    expect(recordStatusLabel(record('spf', 'pending', false))).toBe('Optional, not found');
    expect(recordStatusLabel(record('dkim', 'failed'))).toBe('Lookup failed');
    const elsewhere = {
      policy: 'reject',
      subdomainPolicy: null,
      percent: 100,
      reportAddresses: [],
      reportsHere: false,
    };
    expect(recordStatusLabel({ ...record('dmarc', 'pending', false), dmarc: elsewhere } as DnsRecord)).toBe(
      'Found: p=reject, reports go elsewhere',
    );
  });
});
