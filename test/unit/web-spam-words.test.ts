import { describe, expect, it } from 'vitest';
import { contentMissing, signedPoints, spamCheckInput, spamWords } from '../../web/src/pages/templates/spam-words.js';

const check = (score: number, rules: { name: string; score: number }[], warning = score > 3) => ({
  configured: true,
  score,
  threshold: 5,
  warnAbove: 3,
  warning,
  rules: rules.map((r) => ({ ...r, description: `${r.name} described` })),
  message: '',
});

describe('spamWords', () => {
  it('shows the rules with points and counts those without', () => {
    const words = spamWords(
      check(1.7, [
        { name: 'HTML_IMAGE_ONLY_04', score: 1.7 },
        { name: 'HTML_MESSAGE', score: 0 },
        { name: 'NO_RELAYS', score: -0 },
      ]),
    );
    expect(words).toMatchObject({ tone: 'ok', points: '1.7 points', uncounted: 2 });
    expect(words.counted.map((r) => r.name)).toEqual(['HTML_IMAGE_ONLY_04']);
  });

  it('warns above 3 points, and says one point in the singular', () => {
    expect(spamWords(check(6.8, [])).tone).toBe('waiting');
    expect(spamWords(check(1, [])).points).toBe('1 point');
    expect(spamWords(check(-1, [])).points).toBe('-1 point');
  });
});

describe('signedPoints', () => {
  it('signs each rule’s points', () => {
    expect(signedPoints(2.7)).toBe('+2.7');
    expect(signedPoints(-0.5)).toBe('−0.5');
  });
});

describe('contentMissing', () => {
  it('names the first thing the content lacks', () => {
    expect(contentMissing({ from: ' ', subject: 'Hi', body: '<p>x</p>' })).toBe('a From address');
    expect(contentMissing({ from: 'a@b.c', subject: '', body: '<p>x</p>' })).toBe('a subject');
    expect(contentMissing({ from: 'a@b.c', subject: 'Hi', body: '' })).toBe('a body');
    expect(contentMissing({ from: 'a@b.c', subject: 'Hi', body: '<p>x</p>' })).toBeNull();
  });
});

describe('spamCheckInput', () => {
  it('asks about the content as it would be saved: trimmed addresses, empty ones null', () => {
    const form = {
      subject: 'Hi',
      body: '<p>x</p>',
      type: 'MARKETING' as const,
      from: ' a@x.test ',
      fromName: ' ',
      replyTo: '',
    };
    expect(spamCheckInput(form, { contactId: 'c1' })).toEqual({
      subject: 'Hi',
      body: '<p>x</p>',
      type: 'MARKETING',
      from: 'a@x.test',
      fromName: null,
      replyTo: null,
      contactId: 'c1',
    });
    expect(spamCheckInput(form, { data: { plan: 'pro' } })).toMatchObject({ data: { plan: 'pro' } });
  });
});
