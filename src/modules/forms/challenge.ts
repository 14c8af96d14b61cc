import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createChallenge } from 'altcha-lib/v1';
import type { Challenge } from 'altcha-lib/v1/types';
import type { Clock } from '../../platform/clock.js';

/**
 * The proof of work and the minimum fill time of a form (ALTCHA, self-hosted): a challenge is
 * issued when the form is shown and solved by the visitor's browser while they type. Its salt
 * carries the form id and the moment it was issued, both covered by the challenge's signature, so
 * the time a visitor took cannot be forged either. A solution counts once.
 */

/** Quicker than this from showing the form to sending it is not a person typing. */
export const MIN_FILL_MS = 2_000;
/** A page left open for longer asks for a new challenge. */
const CHALLENGE_TTL_MS = 2 * 3_600_000;
/** About 50,000 SHA-256 hashes on average: well under a second in a phone's browser. */
const MAX_NUMBER = 100_000;

export type ChallengeVerdict = 'ok' | 'invalid' | 'too_fast';

export class FormChallenges {
  /** Challenges already solved and used, with when they expire: a replayed solution is refused. */
  private readonly used = new Map<string, number>();
  /** When the used solutions were last swept for expired ones: once a minute, not at every check. */
  private sweptAt = 0;

  constructor(
    private readonly hmacKey: string,
    private readonly clock: Clock,
  ) {}

  issue(formId: string): Promise<Challenge> {
    const now = this.clock.now().getTime();
    return createChallenge({
      hmacKey: this.hmacKey,
      maxnumber: MAX_NUMBER,
      expires: new Date(now + CHALLENGE_TTL_MS),
      params: { form: formId, issued: String(now) },
    });
  }

  /** Whether `payload` (the base64 JSON a browser sends) solves a challenge issued for this form, in time. */
  async check(formId: string, payload: unknown): Promise<ChallengeVerdict> {
    if (typeof payload !== 'string' || payload.length > 2000) return 'invalid';
    const verified = verifyPayload(payload, this.hmacKey, this.clock.now().getTime());
    if (!verified) return 'invalid';
    const { params, challenge } = verified;
    const issued = Number(params.issued);
    if (params.form !== formId || !Number.isFinite(issued)) return 'invalid';
    const now = this.clock.now().getTime();
    if (now - issued < MIN_FILL_MS) return 'too_fast';
    this.forgetExpired(now);
    // By the challenge, not the payload's text: the same solution encoded otherwise is still a replay.
    if (this.used.has(challenge)) return 'invalid';
    this.used.set(challenge, issued + CHALLENGE_TTL_MS);
    return 'ok';
  }

  private forgetExpired(now: number) {
    if (now - this.sweptAt < 60_000) return;
    this.sweptAt = now;
    for (const [payload, expires] of this.used) if (expires < now) this.used.delete(payload);
  }
}

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * What altcha-lib's `verifySolution` checks (v1, SHA-256), with Node's hash and HMAC on the event
 * loop: its WebCrypto calls took three trips to the thread pool and most of a submission's crypto
 * time. The salt must be one we issued (it ends with `&`, its parameters before it), unexpired, its
 * number must hash to the challenge, and the challenge must carry our signature. Returns the salt's
 * parameters and the challenge, or null.
 */
export function verifyPayload(
  payload: string,
  hmacKey: string,
  nowMs: number,
): { params: Record<string, string>; challenge: string } | null {
  let p: Record<string, unknown>;
  try {
    p = JSON.parse(Buffer.from(payload, 'base64').toString('utf8'));
  } catch {
    return null;
  }
  if (!p || typeof p !== 'object') return null;
  const { algorithm, challenge, number, salt, signature } = p;
  if (algorithm !== 'SHA-256' || typeof salt !== 'string' || !salt.endsWith('&')) return null;
  if (typeof challenge !== 'string' || typeof signature !== 'string') return null;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 0) return null;
  const params = Object.fromEntries(new URLSearchParams(salt.split('?')[1] ?? ''));
  const expires = Number.parseInt(params.expires ?? '', 10);
  if (!Number.isFinite(expires) || expires * 1000 < nowMs) return null;
  const hashed = createHash('sha256')
    .update(salt + number)
    .digest('hex');
  const signed = createHmac('sha256', hmacKey).update(hashed).digest('hex');
  return sameText(hashed, challenge) && sameText(signed, signature) ? { params, challenge } : null;
}
