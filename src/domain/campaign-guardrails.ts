/**
 * When a campaign stops by itself. Mailbox providers judge a sender by the share of its mail that
 * recipients report as spam and the share sent to addresses that do not exist; a campaign to a
 * stale or bought list can ruin a domain's reputation within hours. So a campaign pauses once, over
 * a minimum sample, either share passes its threshold, and waits for a person to resume or cancel it.
 *
 * Defaults follow the big providers' published guidance: Gmail and Yahoo ask bulk senders to stay
 * below a 0.3 % spam rate; a hard-bounce rate above 5 % is where Amazon SES and others put an
 * account under review. The sample keeps a few early failures of a large campaign from stopping it.
 */

export interface GuardrailPolicy {
  /** Complaints per accepted message above which the campaign pauses (0.003 = 0.3 %). */
  maxComplaintRate: number;
  /** Hard bounces per message answered above which the campaign pauses (0.05 = 5 %). */
  maxBounceRate: number;
  /** Messages answered (accepted or refused) since sending (re)started before either rate is judged. */
  minSample: number;
}

export const DEFAULT_GUARDRAILS: GuardrailPolicy = { maxComplaintRate: 0.003, maxBounceRate: 0.05, minSample: 200 };

/**
 * The counts the guardrails judge, cumulative over the campaign:
 *   sent         messages the relay accepted
 *   rejected     messages the relay refused for good (a 5xx answer): the address or its domain does not take mail
 *   hardBounced  accepted messages reported later as a permanent failure (a hard bounce notification)
 *   complained   messages reported as spam
 * Messages given up after temporary failures count in none: they say nothing about the list.
 */
export interface GuardCounts {
  sent: number;
  rejected: number;
  hardBounced: number;
  complained: number;
}

export const NO_COUNTS: GuardCounts = { sent: 0, rejected: 0, hardBounced: 0, complained: 0 };

/** Why a campaign is paused: a guardrail, or a person (`POST /campaigns/{id}/pause`). */
export const PAUSE_REASONS = ['complaint_rate', 'bounce_rate', 'manual'] as const;
export type PauseReason = (typeof PAUSE_REASONS)[number];

export type GuardrailVerdict =
  | { pause: false }
  | { pause: true; reason: Exclude<PauseReason, 'manual'>; rate: number; threshold: number; sample: number };

/**
 * Whether the campaign must pause, judged on what happened since `base` (the counts when it was
 * last resumed or resent; nothing before it, so a resumed campaign is judged on a fresh sample and
 * the figures that paused it do not pause it again at once). A rate pauses when it is above its
 * threshold, not at it. Complaints are judged first: they weigh most with providers.
 */
export function guardrailVerdict(
  now: GuardCounts,
  base: GuardCounts | null,
  policy: GuardrailPolicy,
): GuardrailVerdict {
  const from = base ?? NO_COUNTS;
  const sent = Math.max(0, now.sent - from.sent);
  const rejected = Math.max(0, now.rejected - from.rejected);
  const sample = sent + rejected;
  if (sample < policy.minSample || sample === 0) return { pause: false };
  const complained = Math.max(0, now.complained - from.complained);
  const complaintRate = sent === 0 ? 0 : complained / sent;
  if (complaintRate > policy.maxComplaintRate)
    return { pause: true, reason: 'complaint_rate', rate: complaintRate, threshold: policy.maxComplaintRate, sample };
  const hard = rejected + Math.max(0, now.hardBounced - from.hardBounced);
  const bounceRate = hard / sample;
  if (bounceRate > policy.maxBounceRate)
    return { pause: true, reason: 'bounce_rate', rate: bounceRate, threshold: policy.maxBounceRate, sample };
  return { pause: false };
}

/** At most `count` marketing emails per contact over the last `days` days. */
export interface MarketingCap {
  count: number;
  days: number;
}

/** The start of the cap's window. */
export const capWindowStart = (cap: MarketingCap, now: Date): Date => new Date(now.getTime() - cap.days * 86_400_000);

/** Whether one more marketing email would take a contact who had `received` in the window over the cap. */
export const overCap = (cap: MarketingCap, received: number): boolean => received >= cap.count;

export const cappedReason = (cap: MarketingCap, received: number): string =>
  `Not sent: the contact has had ${received} marketing email${received === 1 ? '' : 's'} in the last ` +
  `${cap.days} day${cap.days === 1 ? '' : 's'}, the project's cap is ${cap.count}`;
