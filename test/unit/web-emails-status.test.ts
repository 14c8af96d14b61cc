import { describe, expect, it } from 'vitest';
import type { EmailRecord } from '../../src/api.js';
import {
  deliveryStory,
  emlFileName,
  hasMessageFile,
  mailbox,
  statusBadge,
  statusFilterLabel,
} from '../../web/src/pages/emails/email-status.js';
import { withoutTracking } from '../../web/src/pages/emails/preview-html.js';
import { NO_FAILURE_OR_FEEDBACK } from '../support/email-records.js';

const ID = '6a0c1f0e-3d2b-4c5a-8e7f-9a0b1c2d3e4f';

const email = (change: Partial<EmailRecord> = {}): EmailRecord => ({
  id: ID,
  projectId: '11111111-2222-4333-8444-555555555555',
  contactId: null,
  templateId: null,
  campaignId: null,
  type: 'TRANSACTIONAL',
  status: 'queued',
  from: 'news@example.com',
  fromName: null,
  to: 'ada@example.com',
  toName: null,
  replyTo: null,
  subject: 'Hello',
  messageId: '<x@example.com>',
  attempts: 0,
  nextAttemptAt: '2025-01-01T10:00:05.000Z',
  lastError: null,
  smtpResponse: null,
  sentAt: null,
  ...NO_FAILURE_OR_FEEDBACK,
  createdAt: '2025-01-01T10:00:00.000Z',
  updatedAt: '2025-01-01T10:00:00.000Z',
  ...change,
});

describe('status words', () => {
  it('names every status in the filter', () => {
    expect(statusFilterLabel('skipped')).toBe('Not sent (skipped)');
    expect(statusFilterLabel('bounced')).toBe('Bounced');
  });

  it('says a word or two for each email, not a colour alone', () => {
    expect(statusBadge(email())).toEqual({ label: 'Queued', tone: 'pending' });
    expect(statusBadge(email({ attempts: 2 }))).toEqual({ label: 'Retrying', tone: 'pending' });
    expect(statusBadge(email({ status: 'sent' }))).toEqual({ label: 'Sent', tone: 'ok' });
    expect(statusBadge(email({ status: 'sent', complainedAt: '2025-01-02T00:00:00Z' }))).toEqual({
      label: 'Marked as spam',
      tone: 'failed',
    });
    expect(statusBadge(email({ status: 'failed' }))).toEqual({ label: 'Failed', tone: 'failed' });
    expect(statusBadge(email({ status: 'skipped' }))).toEqual({ label: 'Not sent', tone: 'neutral' });
    expect(statusBadge(email({ status: 'bounced', bounceType: 'hard' })).label).toBe('Bounced (hard)');
    expect(statusBadge(email({ status: 'bounced', bounceType: null })).label).toBe('Bounced');
  });
});

describe('the delivery story', () => {
  const titles = (e: EmailRecord) => deliveryStory(e).map((s) => s.title);

  it('queued: waiting for the first attempt, with its time', () => {
    const story = deliveryStory(email());
    expect(story.map((s) => s.title)).toEqual(['Accepted and queued', 'Waiting for its first attempt']);
    expect(story[1]!.at).toBe('2025-01-01T10:00:05.000Z');
  });

  it('retrying: the attempts, the last error and the next try', () => {
    const story = deliveryStory(
      email({ attempts: 2, lastError: '421 Try again later', nextAttemptAt: '2025-01-01T10:05:00.000Z' }),
    );
    expect(story.map((s) => s.title)).toEqual([
      'Accepted and queued',
      '2 attempts so far, the last one failed',
      'Next try',
    ]);
    expect(story[1]).toMatchObject({ detail: '421 Try again later', detailLabel: 'Last error', tone: 'failed' });
    expect(story[2]!.at).toBe('2025-01-01T10:05:00.000Z');
  });

  it.each<[string, Partial<EmailRecord>, object]>([
    [
      "sent: when, and the relay's answer",
      { status: 'sent', attempts: 1, sentAt: '2025-01-01T10:00:06.000Z', smtpResponse: '250 2.0.0 OK queued' },
      {
        title: 'Sent',
        at: '2025-01-01T10:00:06.000Z',
        detail: '250 2.0.0 OK queued',
        detailLabel: "Relay's answer",
        tone: 'ok',
      },
    ],
    [
      'failed: after how many attempts, with the last error',
      { status: 'failed', attempts: 1, failedAt: '2025-01-01T10:01:00Z', lastError: '550 No such user' },
      { title: 'Failed after 1 attempt; no more tries', detail: '550 No such user', at: '2025-01-01T10:01:00Z' },
    ],
  ])('%s', (_, change, step) => {
    expect(deliveryStory(email(change))[1]).toMatchObject(step);
  });

  it('sent after a retry: on which attempt', () => {
    expect(titles(email({ status: 'sent', attempts: 3 }))[1]).toBe('Sent on attempt 3');
  });

  it('skipped: with the reason', () => {
    const story = deliveryStory(
      email({ status: 'skipped', lastError: 'Not sent: the address is on the suppression list' }),
    );
    expect(story.map((s) => s.title)).toEqual(['Accepted', 'Not sent']);
    expect(story[1]).toMatchObject({
      detail: 'Not sent: the address is on the suppression list',
      detailLabel: 'Reason',
    });
  });

  it('bounced and complained: after the sending, with the report', () => {
    const e = email({
      status: 'bounced',
      attempts: 1,
      sentAt: '2025-01-01T10:00:06Z',
      bouncedAt: '2025-01-01T10:02:00Z',
      bounceType: 'hard',
      lastError: '5.1.1 user unknown',
      complainedAt: '2025-01-01T11:00:00Z',
    });
    expect(titles(e)).toEqual([
      'Accepted and queued',
      'Sent',
      'Bounced: the address does not take mail',
      'Marked as spam by the recipient',
    ]);
    expect(deliveryStory(e)[2]).toMatchObject({ detail: '5.1.1 user unknown', at: '2025-01-01T10:02:00Z' });
  });
});

describe('the message file and names', () => {
  it('exists once the email has left', () => {
    expect(hasMessageFile({ status: 'sent' })).toBe(true);
    expect(hasMessageFile({ status: 'bounced' })).toBe(true);
    expect(hasMessageFile({ status: 'queued' })).toBe(false);
    expect(hasMessageFile({ status: 'skipped' })).toBe(false);
  });

  it('is named after the subject, or the id', () => {
    expect(emlFileName({ id: ID, subject: 'Your receipt: Café № 42!' })).toBe('your-receipt-cafe-no-42.eml');
    expect(emlFileName({ id: ID, subject: '¡¿' })).toBe(`email-${ID}.eml`);
    expect(emlFileName({ id: ID, subject: 'x'.repeat(100) })).toBe(`${'x'.repeat(60)}.eml`);
  });

  it('shows mailboxes as a mail client does', () => {
    expect(mailbox('ada@example.com', 'Ada Lovelace')).toBe('Ada Lovelace <ada@example.com>');
    expect(mailbox('ada@example.com', null)).toBe('ada@example.com');
  });
});

describe('the preview leaves tracking out', () => {
  const base = 'https://mail.example.com';
  const target = "https://example.org/a?b=1&c=it's";
  const tracked = `${base}/t/click/${ID}/sig123?url=${encodeURIComponent(target)}`
    .replace(/&/g, '&amp;')
    .replace(/'/g, '&#39;');
  const html =
    `<html><body><p><a href="${tracked}">Read</a> <a href="https://example.net/">Plain</a></p>` +
    `<img src="${base}/t/open/${ID}/sig456" width="1" height="1" alt="" style="display:block" />` +
    `<img src="${base}/logo.png" alt="Logo"></body></html>`;

  it("takes out this email's open pixel and points its tracked links at their targets", () => {
    const shown = withoutTracking(html, ID);
    expect(shown).not.toContain('/t/open/');
    expect(shown).not.toContain('/t/click/');
    expect(shown).toContain(`<a href="https://example.org/a?b=1&amp;c=it&#39;s">Read</a>`);
    expect(shown).toContain('<a href="https://example.net/">Plain</a>');
    expect(shown).toContain(`<img src="${base}/logo.png" alt="Logo">`);
  });

  it("leaves another email's links and anything else as they are", () => {
    const other = html.replaceAll(ID, '00000000-0000-4000-8000-000000000000');
    expect(withoutTracking(other, ID)).toBe(other);
    expect(withoutTracking('<p>Hi</p>', ID)).toBe('<p>Hi</p>');
  });
});
