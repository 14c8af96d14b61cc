import { createChallenge, extractParams, verifySolution } from 'altcha-lib/v1';
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
  /** Solutions already used, with when they expire: a replayed one is refused. */
  private readonly used = new Map<string, number>();

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
    let solved: boolean;
    let params: Record<string, string>;
    try {
      solved = await verifySolution(payload, this.hmacKey, true);
      params = extractParams(payload);
    } catch {
      return 'invalid';
    }
    const issued = Number(params.issued);
    if (!solved || params.form !== formId || !Number.isFinite(issued)) return 'invalid';
    const now = this.clock.now().getTime();
    if (now - issued < MIN_FILL_MS) return 'too_fast';
    this.forgetExpired(now);
    if (this.used.has(payload)) return 'invalid';
    this.used.set(payload, issued + CHALLENGE_TTL_MS);
    return 'ok';
  }

  private forgetExpired(now: number) {
    for (const [payload, expires] of this.used) if (expires < now) this.used.delete(payload);
  }
}
