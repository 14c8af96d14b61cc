import { verifySolution } from 'altcha-lib/v1';
import { describe, expect, it } from 'vitest';
import { FormChallenges, verifyPayload } from '../../src/modules/forms/challenge.js';
import { solve } from '../support/forms.js';

/**
 * The proof-of-work check, made with Node's hash and HMAC, against altcha-lib's own: the same
 * verdicts, and a solution counted once however it is encoded.
 */

const KEY = 'a-test-key';
let now = Date.parse('2026-11-28T10:00:00Z');
const clock = { now: () => new Date(now) };

async function solved(challenges: FormChallenges, formId: string) {
  const payload = solve({ maxnumber: 100_000, ...(await challenges.issue(formId)) });
  now += 3_000;
  return payload;
}

describe('the proof of work of a form', () => {
  it('accepts what altcha-lib accepts, and refuses what it refuses', async () => {
    const challenges = new FormChallenges(KEY, clock);
    const payload = await solved(challenges, 'form-a');
    expect(verifyPayload(payload, KEY, now)).not.toBeNull();
    const decoded = JSON.parse(Buffer.from(payload, 'base64').toString());
    const variants = [
      { ...decoded, number: decoded.number + 1 },
      { ...decoded, signature: decoded.signature.replace(/^./, (c: string) => (c === '0' ? '1' : '0')) },
      { ...decoded, salt: decoded.salt.replace('form=form-a', 'form=form-b') },
      { ...decoded, algorithm: 'SHA-1' },
    ];
    for (const v of variants) {
      const text = Buffer.from(JSON.stringify(v)).toString('base64');
      expect(verifyPayload(text, KEY, now)).toBeNull();
    }
    // altcha-lib checks expiry against the real time: its verdict on the untouched payload is the same.
    expect(await verifySolution(payload, KEY, false)).toBe(true);
    expect(verifyPayload(payload, 'another-key', now)).toBeNull();
    expect(verifyPayload('not base64 json', KEY, now)).toBeNull();
  });

  it('refuses a solution that is too fast, expired, for another form, or used before in any encoding', async () => {
    const challenges = new FormChallenges(KEY, clock);
    const quick = solve({ maxnumber: 100_000, ...(await challenges.issue('form-a')) });
    expect(await challenges.check('form-a', quick)).toBe('too_fast');

    const payload = await solved(challenges, 'form-a');
    expect(await challenges.check('form-b', payload)).toBe('invalid');
    expect(await challenges.check('form-a', payload)).toBe('ok');
    expect(await challenges.check('form-a', payload)).toBe('invalid');
    const reencoded = Buffer.from(
      JSON.stringify(JSON.parse(Buffer.from(payload, 'base64').toString()), null, 1),
    ).toString('base64');
    expect(await challenges.check('form-a', reencoded)).toBe('invalid');

    const late = await solved(challenges, 'form-a');
    now += 3 * 3_600_000;
    expect(await challenges.check('form-a', late)).toBe('invalid');
  });
});
