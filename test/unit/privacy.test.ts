import { describe, expect, it } from 'vitest';
import { erasedAddressHash } from '../../src/domain/erasure.js';
import { eraseConfirmed, erasePercent, eraseProgressText } from '../../web/src/pages/contacts/erase-confirm.js';
import { parseDays, privacyDraft, privacyPatch } from '../../web/src/pages/settings/privacy-settings.js';

describe('the hash an erase keeps', () => {
  const salt = Buffer.alloc(32, 7);
  const project = '6f806acf-a343-4dc1-ab16-1fe9245c11dd';

  it('is the same for the address however it is written, and says nothing of it', () => {
    const hash = erasedAddressHash(salt, project, 'ada@example.com');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(erasedAddressHash(salt, project, '  Ada@Example.COM ')).toBe(hash);
    expect(hash).not.toContain('ada');
  });

  it('differs per project and per salt, so it cannot be matched elsewhere', () => {
    const hash = erasedAddressHash(salt, project, 'ada@example.com');
    expect(erasedAddressHash(salt, '00000000-0000-4000-8000-000000000000', 'ada@example.com')).not.toBe(hash);
    expect(erasedAddressHash(Buffer.alloc(32, 8), project, 'ada@example.com')).not.toBe(hash);
    expect(erasedAddressHash(salt, project, 'ada@example.org')).not.toBe(hash);
  });
});

describe('the erase dialog', () => {
  it('asks for the address itself, spaces and case aside', () => {
    expect(eraseConfirmed('ada@example.com', 'ada@example.com')).toBe(true);
    expect(eraseConfirmed('  ADA@example.com ', 'ada@example.com')).toBe(true);
    expect(eraseConfirmed('ada@example.co', 'ada@example.com')).toBe(false);
    expect(eraseConfirmed('', '')).toBe(false);
  });

  it('says where the erase is', () => {
    expect(eraseProgressText({ status: 'queued', processed: 0, total: 10 })).toBe('Waiting for a worker…');
    expect(eraseProgressText({ status: 'running', processed: 2000, total: 100000 })).toBe(
      'Removing the history: 2,000 of 100,000 rows.',
    );
    expect(eraseProgressText({ status: 'completed', processed: 100000, total: 100000 })).toBe(
      'Erased: 100,000 rows of history removed.',
    );
    expect(erasePercent({ status: 'running', processed: 2000, total: 100000 })).toBe(2);
    expect(erasePercent({ status: 'completed', processed: 0, total: 0 })).toBe(100);
  });
});

describe('the privacy settings form', () => {
  const saved = {
    eventRetentionDays: null,
    instanceEventRetentionDays: 365,
    emailBodyRetentionDays: 30,
    inboundRetentionDays: null,
    keepErasedAddresses: true,
    erasedAddresses: 2,
  };

  it('reads days as typed: empty for ever, whole days from 1 to 36,500', () => {
    expect(parseDays('')).toEqual({ days: null });
    expect(parseDays(' 90 ')).toEqual({ days: 90 });
    expect(parseDays('0')).toEqual({ problem: 'From 1 to 36,500 days.' });
    expect(parseDays('1.5')).toEqual({ problem: 'A whole number of days, or empty to keep for ever.' });
  });

  it('asks only for what changed, and nothing while a field is wrong', () => {
    const draft = privacyDraft(saved);
    expect(draft).toEqual({
      eventRetentionDays: '',
      emailBodyRetentionDays: '30',
      inboundRetentionDays: '',
      keepErasedAddresses: true,
    });
    expect(privacyPatch(saved, draft)).toEqual({ patch: null, problems: {} });
    expect(privacyPatch(saved, { ...draft, emailBodyRetentionDays: '', inboundRetentionDays: '7' })).toEqual({
      patch: { emailBodyRetentionDays: null, inboundRetentionDays: 7 },
      problems: {},
    });
    expect(privacyPatch(saved, { ...draft, keepErasedAddresses: false, eventRetentionDays: 'x' })).toEqual({
      patch: null,
      problems: { eventRetentionDays: 'A whole number of days, or empty to keep for ever.' },
    });
  });
});
