/**
 * The rules Gmail and Yahoo hold bulk senders to since 2024, as a checklist for one sender domain:
 * DKIM aligned and verifying, SPF published (and aligned through the return path), DMARC published,
 * one-click unsubscribe on marketing mail, spam complaints under 0.3 %, and few hard bounces. Pure:
 * the record checks and the figures come from the domains and emails modules.
 */

export const COMPLAINT_WARN = 0.001;
export const COMPLAINT_FAIL = 0.003;
export const HARD_BOUNCE_WARN = 0.02;
export const HARD_BOUNCE_FAIL = 0.05;

export const RULE_KEYS = [
  'dkim',
  'spf',
  'dmarc',
  'one-click-unsubscribe',
  'complaint-rate',
  'hard-bounce-rate',
] as const;
export type RuleKey = (typeof RULE_KEYS)[number];
export type RuleStatus = 'pass' | 'warn' | 'fail';

export interface RuleItem {
  key: RuleKey;
  title: string;
  status: RuleStatus;
  /** What was found, in a sentence. */
  detail: string;
  /** What to do about it; null when nothing. */
  action: string | null;
}

type RecordState = 'verified' | 'pending' | 'failed';

export interface SenderFacts {
  domain: string;
  dkim: RecordState;
  spf: RecordState;
  /** Null when the return path is not offered (no inbound listener). */
  returnPath: RecordState | null;
  /** The DMARC policy in force; null when none is published. */
  dmarcPolicy: string | null;
  /** Over the last 7 days. */
  sent: number;
  complained: number;
  hardBounced: number;
}

const percent = (rate: number) => `${(Math.round(rate * 10_000) / 100).toString()} %`;

function dkim(f: SenderFacts): RuleItem {
  const title = 'DKIM signs with your domain and verifies';
  if (f.dkim === 'verified')
    return {
      key: 'dkim',
      title,
      status: 'pass',
      detail: `Mail is signed with d=${f.domain}, the From domain, so DKIM aligns; the key is published.`,
      action: null,
    };
  return {
    key: 'dkim',
    title,
    status: 'fail',
    detail:
      f.dkim === 'failed'
        ? 'The DKIM record is missing its key, carries another key, or could not be looked up.'
        : 'The DKIM record is not published yet, so receivers cannot verify the signature.',
    action: 'Publish the DKIM record listed with the domain, then verify it.',
  };
}

function spf(f: SenderFacts): RuleItem {
  const title = 'SPF published and aligned';
  if (f.spf !== 'verified')
    return {
      key: 'spf',
      title,
      status: 'fail',
      detail: 'No SPF record was found for the domain.',
      action: 'Publish the SPF record listed with the domain (merged with any you have: a domain has one).',
    };
  if (f.returnPath === null)
    return {
      key: 'spf',
      title,
      status: 'pass',
      detail:
        'SPF is published. The return path is your relay’s, so DMARC alignment comes from DKIM; ' +
        'with INBOUND_SMTP_PORT set, Postbox offers a return path on your domain that aligns SPF too.',
      action: null,
    };
  if (f.returnPath === 'verified')
    return {
      key: 'spf',
      title,
      status: 'pass',
      detail: `SPF is published and aligns through the return path bounces.${f.domain}.`,
      action: null,
    };
  return {
    key: 'spf',
    title,
    status: 'warn',
    detail: 'SPF is published, but the return path is not on your domain yet, so SPF does not align.',
    action: `Publish the return-path MX record for bounces.${f.domain}.`,
  };
}

function dmarc(f: SenderFacts): RuleItem {
  const title = 'DMARC published';
  if (f.dmarcPolicy)
    return {
      key: 'dmarc',
      title,
      status: 'pass',
      detail: `A DMARC record with p=${f.dmarcPolicy} is published.`,
      action: null,
    };
  return {
    key: 'dmarc',
    title,
    status: 'fail',
    detail: 'No single DMARC record is published: Gmail and Yahoo require one of bulk senders.',
    action: 'Publish the DMARC record listed with the domain (p=none to start).',
  };
}

const unsubscribe: RuleItem = {
  key: 'one-click-unsubscribe',
  title: 'One-click unsubscribe on marketing mail',
  status: 'pass',
  detail:
    'Every marketing email carries List-Unsubscribe and List-Unsubscribe-Post (RFC 8058): ' +
    'receivers offer the one-click unsubscribe, which takes effect at once.',
  action: null,
};

function rate(
  key: 'complaint-rate' | 'hard-bounce-rate',
  title: string,
  count: number,
  sent: number,
  warn: number,
  fail: number,
  what: string,
  action: string,
): RuleItem {
  if (sent === 0)
    return {
      key,
      title,
      status: 'pass',
      detail: 'Nothing was sent from this domain in the last 7 days.',
      action: null,
    };
  const r = count / sent;
  const status: RuleStatus = r >= fail ? 'fail' : r >= warn ? 'warn' : 'pass';
  return {
    key,
    title,
    status,
    detail: `${count.toLocaleString('en')} ${what} of ${sent.toLocaleString('en')} sent in the last 7 days: ${percent(r)} (warning from ${percent(warn)}, over the limit from ${percent(fail)}).`,
    action: status === 'pass' ? null : action,
  };
}

/** The checklist for one sender domain, in the order shown. */
export function bulkSenderRules(f: SenderFacts): RuleItem[] {
  return [
    dkim(f),
    spf(f),
    dmarc(f),
    unsubscribe,
    rate(
      'complaint-rate',
      'Spam complaints under 0.3 %',
      f.complained,
      f.sent,
      COMPLAINT_WARN,
      COMPLAINT_FAIL,
      'complaints',
      'Send only to people who asked for your mail, make unsubscribing easy to find, and stop mailing those who never open.',
    ),
    rate(
      'hard-bounce-rate',
      'Few hard bounces',
      f.hardBounced,
      f.sent,
      HARD_BOUNCE_WARN,
      HARD_BOUNCE_FAIL,
      'hard bounces',
      'Clean the list: verify addresses before sending (POST /v1/verify) and drop old ones; bounced addresses are already suppressed.',
    ),
  ];
}
