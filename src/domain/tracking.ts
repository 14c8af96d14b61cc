import type { EmailType } from './email.js';

/**
 * Whether an email's opens (a pixel) and clicks (rewritten links) are tracked, and where that is
 * decided (docs/decisions.md, "Tracking settings"). Each flag is taken from the first choice that
 * gives it, most specific first: the send's, then the template's (for a campaign, the campaign's),
 * then the project's for the email's type, whose own default is `DEFAULT_TRACKING`.
 */

export interface Tracking {
  opens: boolean;
  clicks: boolean;
}

/** A send's, a template's or a campaign's choice: a flag that is null or absent follows the next choice. */
export interface TrackingChoice {
  opens?: boolean | null;
  clicks?: boolean | null;
}

/** A project's choice for each type. */
export type ProjectTracking = Record<EmailType, Tracking>;

/** Nothing tracked: mail the service writes to people who are not contacts (an invitation). */
export const NO_TRACKING: Tracking = { opens: false, clicks: false };

/** Marketing and transactional mail are tracked, headless mail is sent as written, unless a project says otherwise. */
export const DEFAULT_TRACKING: ProjectTracking = {
  TRANSACTIONAL: { opens: true, clicks: true },
  MARKETING: { opens: true, clicks: true },
  HEADLESS: { opens: false, clicks: false },
};

/** The choice of a send, a template or a campaign, from its `trackOpens` and `trackClicks`. */
export const choiceOf = (
  source: { trackOpens?: boolean | null; trackClicks?: boolean | null } | null | undefined,
): TrackingChoice | null => (source ? { opens: source.trackOpens, clicks: source.trackClicks } : null);

const first = (choices: readonly (TrackingChoice | null | undefined)[], flag: keyof Tracking): boolean | undefined =>
  choices.map((c) => c?.[flag]).find((v): v is boolean => typeof v === 'boolean');

/** The tracking of one send: the choices, most specific first, over the project's for `type`. */
export function resolveTracking(
  type: EmailType,
  project: ProjectTracking,
  ...choices: (TrackingChoice | null | undefined)[]
): Tracking {
  return {
    opens: first(choices, 'opens') ?? project[type].opens,
    clicks: first(choices, 'clicks') ?? project[type].clicks,
  };
}

/**
 * The `X-Postbox-Track` header of a message submitted over SMTP: `none`, or a comma-separated list
 * of `opens` and `clicks` (what is not named is not tracked). Null when it is not one of those.
 */
export function parseTrackHeader(value: string): Tracking | null {
  const words = value
    .toLowerCase()
    .split(',')
    .map((w) => w.trim())
    .filter(Boolean);
  if (words.length === 1 && words[0] === 'none') return { ...NO_TRACKING };
  if (words.length === 0 || words.some((w) => w !== 'opens' && w !== 'clicks')) return null;
  return { opens: words.includes('opens'), clicks: words.includes('clicks') };
}
