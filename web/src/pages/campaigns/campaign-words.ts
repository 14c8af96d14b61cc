import type {
  Campaign,
  CampaignStats,
  CampaignStatus,
  RecipientOutcome,
  RecipientReason,
} from '../../../../src/api.js';
import { formatDateTime } from '../../format/dates.js';

/** What the Campaigns pages say about a campaign: its state, its figures, its recipients, in words. */

export const numberFormat = new Intl.NumberFormat();
export const count = (n: number) => numberFormat.format(n);
export const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;

const percentFormat = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });
export const percent = (share: number) => percentFormat.format(share);

type Tone = 'ok' | 'pending' | 'failed' | 'neutral';
export const STATUS_WORDS: Record<CampaignStatus, { label: string; tone: Tone }> = {
  DRAFT: { label: 'Draft', tone: 'neutral' },
  SCHEDULED: { label: 'Scheduled', tone: 'pending' },
  SENDING: { label: 'Sending', tone: 'pending' },
  PAUSED: { label: 'Paused', tone: 'failed' },
  SENT: { label: 'Sent', tone: 'ok' },
  CANCELLED: { label: 'Cancelled', tone: 'neutral' },
};
export const CAMPAIGN_STATUSES = Object.keys(STATUS_WORDS) as CampaignStatus[];
export const badgeClass = (tone: Tone) => (tone === 'neutral' ? 'badge' : `badge badge-${tone}`);

/** Why a campaign is paused, in a sentence. */
export function pauseWords(c: Pick<Campaign, 'pausedReason' | 'pausedAt'>): string {
  const since = c.pausedAt ? ` on ${formatDateTime(c.pausedAt)}` : '';
  switch (c.pausedReason) {
    case 'complaint_rate':
      return `Paused by its guardrail${since}: too many recipients reported it as spam. Check the content and the audience before resuming.`;
    case 'bounce_rate':
      return `Paused by its guardrail${since}: too many messages bounced. Check the list for stale addresses before resuming.`;
    case 'manual':
      return `Paused by hand${since}. Nothing more goes out until it is resumed.`;
    default:
      return 'Paused.';
  }
}

export const OUTCOME_LABELS: Record<RecipientOutcome, string> = {
  queued: 'Waiting',
  delivered: 'Delivered',
  complained: 'Reported as spam',
  bounced: 'Bounced',
  failed: 'Failed',
  skipped: 'Not sent',
};
export const OUTCOMES = Object.keys(OUTCOME_LABELS) as RecipientOutcome[];
export const OUTCOME_TONES: Record<RecipientOutcome, Tone> = {
  queued: 'pending',
  delivered: 'ok',
  complained: 'failed',
  bounced: 'failed',
  failed: 'failed',
  skipped: 'neutral',
};

export const REASON_LABELS: Record<RecipientReason, string> = {
  hard: 'hard bounce: the address does not exist',
  soft: 'soft bounce: the mailbox was full or unavailable',
  rejected: 'refused by the receiving server',
  undeliverable: 'given up after the retries',
  unsubscribed: 'unsubscribed before their turn',
  suppressed: 'on the suppression list',
  capped: 'over the marketing cap',
  unrenderable: 'the template did not render for their data',
  deleted: 'contact deleted',
  cancelled: 'the campaign was cancelled',
};

/** The reasons each outcome can have (GET /campaigns/{id}/recipients `reason`). */
export const OUTCOME_REASONS = {
  bounced: ['hard', 'soft'],
  failed: ['rejected', 'undeliverable'],
  skipped: ['unsubscribed', 'suppressed', 'capped', 'unrenderable', 'deleted', 'cancelled'],
} as const satisfies Partial<Record<RecipientOutcome, readonly RecipientReason[]>>;

/** What the recipient list can show: one outcome, or those who opened or clicked. */
export type RecipientView = RecipientOutcome | 'opened' | 'clicked';
export const VIEW_LABELS: Record<RecipientView, string> = {
  ...OUTCOME_LABELS,
  opened: 'Opened',
  clicked: 'Clicked',
};
export const RECIPIENT_VIEWS: RecipientView[] = [
  'delivered',
  'opened',
  'clicked',
  'bounced',
  'complained',
  'failed',
  'skipped',
  'queued',
];

/** A figure of the report and the recipients behind it (an outcome of the recipient list). */
export interface Figure {
  key: 'delivered' | 'opened' | 'clicked' | 'bounced' | 'complained' | 'unsubscribed';
  label: string;
  value: number;
  /** The share it is of `of`. */
  rate: number;
  of: string;
  /** Shown as a problem: bounces at 5 % or more (of at least 5), complaints at 0.1 % or more. */
  alarm: boolean;
  /** The recipients behind it, when the list can show them. */
  view?: RecipientView;
}

const share = (n: number, of: number) => (of === 0 ? 0 : n / of);

/** The report's figures in funnel order. */
export function funnel(s: CampaignStats): Figure[] {
  const attempted = s.delivered + s.bounced;
  return [
    {
      key: 'delivered',
      label: 'Delivered',
      value: s.delivered,
      rate: share(s.delivered, attempted),
      of: 'of those sent',
      alarm: false,
      view: 'delivered',
    },
    {
      key: 'opened',
      label: 'Opened',
      value: s.opened,
      rate: s.openRate,
      of: 'of delivered',
      alarm: false,
      view: 'opened',
    },
    {
      key: 'clicked',
      label: 'Clicked',
      value: s.clicked,
      rate: s.clickRate,
      of: 'of delivered',
      alarm: false,
      view: 'clicked',
    },
    {
      key: 'bounced',
      label: 'Bounced',
      value: s.bounced,
      rate: s.bounceRate,
      of: 'of those sent',
      alarm: s.bounced >= 5 && s.bounceRate >= 0.05,
      view: 'bounced',
    },
    {
      key: 'complained',
      label: 'Complained',
      value: s.complained,
      rate: share(s.complained, s.delivered),
      of: 'of delivered',
      alarm: s.complained > 0 && share(s.complained, s.delivered) >= 0.001,
      view: 'complained',
    },
    {
      key: 'unsubscribed',
      label: 'Unsubscribed',
      value: s.unsubscribed,
      rate: share(s.unsubscribed, s.delivered),
      of: 'of delivered',
      alarm: false,
    },
  ];
}

/** What cancelling does to a campaign in this state, in words (the server's cancel is final). */
export function cancelWords(c: Pick<Campaign, 'status' | 'sentCount'>): string {
  if (c.status === 'SCHEDULED')
    return 'The campaign will not go out, and it cannot be sent again (duplicate it to send the same email later). To change the time instead, unschedule it: it goes back to draft.';
  const sent =
    c.sentCount === 0
      ? 'Nothing has been sent yet'
      : `${plural(c.sentCount, 'message')} already went out and stay sent`;
  return `Sending stops: ${sent}; the recipients still waiting get nothing. A cancelled campaign cannot be sent again.`;
}

/** Liquid that prints a link to unsubscribe or to manage the subscription. */
const UNSUBSCRIBE_LINK = /\{\{\s*(unsubscribeUrl|manageUrl)\b/;
export const hasUnsubscribeLink = (body: string) => UNSUBSCRIBE_LINK.test(body);

/** "in 3 min", "in 2 h 5 min". */
export function durationWords(seconds: number): string {
  if (seconds < 60) return 'under a minute';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours < 48) return rest ? `${hours} h ${rest} min` : `${hours} h`;
  return `${Math.round(hours / 24)} days`;
}

// ---------------------------------------------------------------------------------------------
// Scheduling: presets, and a wall-clock time in a chosen zone as an instant.

export const viewerZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** The zones offered: the viewer's first, then every zone the browser knows. */
export function timeZones(): string[] {
  const all = (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('timeZone') ?? ['UTC'];
  const own = viewerZone();
  return [own, ...all.filter((z) => z !== own)];
}

/** The offset of `zone` from UTC at `at`, in minutes. */
function zoneOffset(at: Date, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return Math.round((asUtc - at.getTime()) / 60_000);
}

/** The instant of a date (`2030-01-31`) and time (`09:00`) on the clocks of `zone`; null if either is not valid. */
export function instantIn(date: string, time: string, zone: string): Date | null {
  const d = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const t = /^(\d{2}):(\d{2})$/.exec(time);
  if (!d || !t) return null;
  const wall = Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3]), Number(t[1]), Number(t[2]));
  // The offset at the guess, then again at the corrected instant (it differs across a DST change).
  const first = wall - zoneOffset(new Date(wall), zone) * 60_000;
  return new Date(wall - zoneOffset(new Date(first), zone) * 60_000);
}

/** A date and time input's values for `at` on the clocks of `zone`. */
export function wallClock(at: Date, zone: string): { date: string; time: string } {
  const local = new Date(at.getTime() + zoneOffset(at, zone) * 60_000).toISOString();
  return { date: local.slice(0, 10), time: local.slice(11, 16) };
}

/** Preset times: in an hour, tomorrow at 9:00 and next Monday at 9:00 on the viewer's clocks. */
export function schedulePresets(now: Date): { label: string; at: Date }[] {
  const at9 = (daysAhead: number) => {
    const d = new Date(now);
    d.setDate(d.getDate() + daysAhead);
    d.setHours(9, 0, 0, 0);
    return d;
  };
  const inHour = new Date(Math.ceil((now.getTime() + 3_600_000) / 300_000) * 300_000);
  const monday = (8 - now.getDay()) % 7 || 7;
  return [
    { label: 'In an hour', at: inHour },
    { label: 'Tomorrow at 9:00', at: at9(1) },
    { label: 'Next Monday at 9:00', at: at9(monday) },
  ];
}
