/**
 * What happened to an email, in words: the status badge of the list, and the delivery story of the
 * email page (queued → sent with the relay's answer; attempts, the last error and the next retry;
 * held back with the reason; bounced; marked as spam). Pure, so every case is tested.
 */
import type { EmailRecord, EmailStatus, EmailType } from '../../../../src/api.js';

export type Tone = 'ok' | 'pending' | 'failed' | 'neutral';

function assertNever(value: never): never {
  throw new Error(`Unhandled case: ${String(value)}`);
}

/** The filter's words for each status. */
export function statusFilterLabel(status: EmailStatus): string {
  switch (status) {
    case 'queued':
      return 'Queued';
    case 'sent':
      return 'Sent';
    case 'failed':
      return 'Failed';
    case 'skipped':
      return 'Not sent (skipped)';
    case 'bounced':
      return 'Bounced';
    default:
      return assertNever(status);
  }
}

type StatusFacts = Pick<EmailRecord, 'status' | 'attempts' | 'bounceType' | 'complainedAt'>;

/** The badge of one email: a word or two, and its colour (never the colour alone). */
export function statusBadge(email: StatusFacts): { label: string; tone: Tone } {
  switch (email.status) {
    case 'queued':
      return email.attempts > 0 ? { label: 'Retrying', tone: 'pending' } : { label: 'Queued', tone: 'pending' };
    case 'sent':
      return email.complainedAt ? { label: 'Marked as spam', tone: 'failed' } : { label: 'Sent', tone: 'ok' };
    case 'failed':
      return { label: 'Failed', tone: 'failed' };
    case 'skipped':
      return { label: 'Not sent', tone: 'neutral' };
    case 'bounced':
      return {
        label:
          email.bounceType === 'hard' ? 'Bounced (hard)' : email.bounceType === 'soft' ? 'Bounced (soft)' : 'Bounced',
        tone: 'failed',
      };
    default:
      return assertNever(email.status);
  }
}

export interface StoryStep {
  key: string;
  title: string;
  tone: Tone;
  /** When it happened (or, for a retry, will): an ISO time, or null when the record does not say. */
  at: string | null;
  detail?: string;
  /** A short label for the detail ("Relay's answer", "Last error"). */
  detailLabel?: string;
}

const attemptsWord = (n: number) => `${n} attempt${n === 1 ? '' : 's'}`;

/** The email's delivery, step by step, oldest first. */
export function deliveryStory(email: EmailRecord): StoryStep[] {
  const steps: StoryStep[] = [];
  const accepted: StoryStep = { key: 'accepted', title: 'Accepted and queued', tone: 'neutral', at: email.createdAt };

  switch (email.status) {
    case 'queued':
      steps.push(accepted);
      if (email.attempts > 0)
        steps.push({
          key: 'attempt',
          title: `${attemptsWord(email.attempts)} so far, the last one failed`,
          tone: 'failed',
          at: null,
          ...(email.lastError ? { detail: email.lastError, detailLabel: 'Last error' } : {}),
        });
      steps.push({
        key: 'next',
        title: email.attempts > 0 ? 'Next try' : 'Waiting for its first attempt',
        tone: 'pending',
        at: email.nextAttemptAt,
      });
      break;
    case 'sent':
    case 'bounced':
      steps.push(accepted, sentStep(email));
      if (email.status === 'bounced')
        steps.push({
          key: 'bounced',
          title:
            email.bounceType === 'hard'
              ? 'Bounced: the address does not take mail'
              : email.bounceType === 'soft'
                ? 'Bounced for now (soft): the mailbox could not take it'
                : 'Bounced',
          tone: 'failed',
          at: email.bouncedAt,
          ...(email.lastError ? { detail: email.lastError, detailLabel: 'Report' } : {}),
        });
      break;
    case 'failed':
      steps.push(accepted, {
        key: 'failed',
        title: `Failed after ${attemptsWord(email.attempts)}; no more tries`,
        tone: 'failed',
        at: email.failedAt,
        ...(email.lastError ? { detail: email.lastError, detailLabel: 'Last error' } : {}),
      });
      break;
    case 'skipped':
      steps.push(
        { ...accepted, title: 'Accepted' },
        {
          key: 'skipped',
          title: 'Not sent',
          tone: 'neutral',
          at: null,
          detail: email.lastError ?? 'Held back by the service.',
          detailLabel: 'Reason',
        },
      );
      break;
    default:
      return assertNever(email.status);
  }

  if (email.complainedAt)
    steps.push({ key: 'complained', title: 'Marked as spam by the recipient', tone: 'failed', at: email.complainedAt });
  return steps;
}

function sentStep(email: EmailRecord): StoryStep {
  return {
    key: 'sent',
    title: email.attempts > 1 ? `Sent on attempt ${email.attempts}` : 'Sent',
    tone: 'ok',
    at: email.sentAt,
    ...(email.smtpResponse ? { detail: email.smtpResponse, detailLabel: "Relay's answer" } : {}),
  };
}

/** Only a message that left (or was captured) has a .eml to download. */
export const hasMessageFile = (email: Pick<EmailRecord, 'status'>) =>
  email.status === 'sent' || email.status === 'bounced';

/** A download name from the subject: letters, digits and dashes, at most 60 of them, else the id. */
export function emlFileName(email: Pick<EmailRecord, 'id' | 'subject'>): string {
  const slug = email.subject
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return `${slug || `email-${email.id}`}.eml`;
}

/** The sender or recipient as a mail client shows it. */
export function mailbox(address: string, name: string | null): string {
  return name ? `${name} <${address}>` : address;
}

export function typeLabel(type: EmailType): string {
  switch (type) {
    case 'TRANSACTIONAL':
      return 'Transactional';
    case 'MARKETING':
      return 'Marketing';
    case 'HEADLESS':
      return 'Headless';
    default:
      return assertNever(type);
  }
}
