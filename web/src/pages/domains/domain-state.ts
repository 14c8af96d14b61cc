import type { DnsRecord, Domain, RecordPurpose } from '../../../../src/api.js';

export type Tone = 'ok' | 'waiting' | 'problem';

export interface SendingState {
  tone: Tone;
  text: string;
}

export const PURPOSE_LABELS: Record<RecordPurpose, string> = {
  dkim: 'DKIM',
  verification: 'ownership',
  spf: 'SPF',
  'return-path': 'return-path',
  dmarc: 'DMARC',
};

const joinWords = (words: string[]) =>
  words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;

/** Whether mail can be sent from the domain, and if not, which record it waits for, in words. */
export function sendingState(domain: Pick<Domain, 'verified' | 'checkedAt' | 'records'>): SendingState {
  if (domain.verified) return { tone: 'ok', text: 'Verified: ready to send' };
  const missing = domain.records.filter((r) => r.required && r.status !== 'verified');
  const failed = missing.filter((r) => r.status === 'failed');
  if (failed.length > 0) {
    const names = joinWords(failed.map((r) => PURPOSE_LABELS[r.purpose]));
    return { tone: 'problem', text: `The DNS lookup for the ${names} record failed; it is retried every 5 minutes` };
  }
  if (!domain.checkedAt) return { tone: 'waiting', text: 'Not checked yet: add the records below, then verify' };
  if (missing.length === 0) return { tone: 'waiting', text: 'Records found; waiting for the next check' };
  const names = joinWords(missing.map((r) => PURPOSE_LABELS[r.purpose]));
  return { tone: 'waiting', text: `Waiting for the ${names} record${missing.length > 1 ? 's' : ''}` };
}

export function recordStatusLabel(record: Pick<DnsRecord, 'status' | 'required' | 'dmarc'>): string {
  if (record.status === 'verified') return 'Found';
  if (record.dmarc && !record.dmarc.reportsHere) return `Found: p=${record.dmarc.policy}, reports go elsewhere`;
  if (record.status === 'failed') return 'Lookup failed';
  return record.required ? 'Not found yet' : 'Optional, not found';
}
