import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';
import type { Executor } from '../../platform/db/client.js';
import * as repo from './sessions-repo.js';

export const SESSION_COOKIE = 'postbox_session';
export const SESSION_SECONDS = 7 * 24 * 3600;
/** Between a right password and the second factor: a short-lived token naming the user. */
export const CHALLENGE_COOKIE = 'postbox_sign_in';
export const CHALLENGE_SECONDS = 5 * 60;
/** "Last seen" is written at most this often per session: a read per request, a write per minute. */
const TOUCH_MS = 60_000;
const SECOND_FACTOR = 'second-factor';

/** What a session token must carry; anything else is not a session of this service. */
const claims = z.object({
  sub: z.string().uuid(),
  jti: z.string().uuid(),
  exp: z.number().int(),
  // A second-factor challenge is signed with the same key, and is no session.
  purpose: z.undefined(),
});
const challengeClaims = z.object({ sub: z.string().uuid(), purpose: z.literal(SECOND_FACTOR) });

export interface Session {
  userId: string;
  id: string;
  expiresAt: Date;
  /** Whether this session was opened (or later confirmed) with a second factor. */
  secondFactor: boolean;
}

/** Where a request came from, as a session records it. */
export interface RequestPlace {
  ip: string;
  userAgent: string;
}

/**
 * Dashboard sessions: a JWT (HS256, the instance's own key) in an HttpOnly cookie, and a record per
 * session. The token proves who signed it; the record lets the user list and end sessions, and is
 * read on every request, so a session ended anywhere is refused on its next request
 * (docs/decisions.md, "Sessions are records").
 */
export class Sessions {
  constructor(
    private readonly key: Uint8Array,
    private readonly db: Executor,
  ) {}

  async issue(userId: string, now: Date, place: RequestPlace, secondFactor: boolean): Promise<string> {
    const id = randomUUID();
    const iat = Math.floor(now.getTime() / 1000);
    await repo.insertSession(this.db, {
      id,
      user_id: userId,
      created_at: now,
      last_seen_at: now,
      expires_at: new Date((iat + SESSION_SECONDS) * 1000),
      ip: place.ip,
      user_agent: place.userAgent.slice(0, 500),
      second_factor: secondFactor,
    });
    return new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(userId)
      .setJti(id)
      .setIssuedAt(iat)
      .setExpirationTime(iat + SESSION_SECONDS)
      .sign(this.key);
  }

  /** The session a token stands for, or null when it is forged, expired, malformed or ended. */
  async verify(token: string, now: Date, ip?: string): Promise<Session | null> {
    const payload = await this.payload(token, now);
    const parsed = claims.safeParse(payload);
    if (!parsed.success) return null;
    const row = await repo.liveSession(this.db, parsed.data.jti, now);
    if (!row || row.user_id !== parsed.data.sub) return null;
    if (ip !== undefined && now.getTime() - row.last_seen_at.getTime() >= TOUCH_MS) {
      await repo.touchSession(this.db, row.id, now, ip);
    }
    return { userId: row.user_id, id: row.id, expiresAt: row.expires_at, secondFactor: row.second_factor };
  }

  /** A token that only lets its holder give the second factor, for CHALLENGE_SECONDS. */
  challenge(userId: string, now: Date): Promise<string> {
    const iat = Math.floor(now.getTime() / 1000);
    return new SignJWT({ purpose: SECOND_FACTOR })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(userId)
      .setJti(randomUUID())
      .setIssuedAt(iat)
      .setExpirationTime(iat + CHALLENGE_SECONDS)
      .sign(this.key);
  }

  /** The user a challenge token names, or null when it is not a live challenge of this service. */
  async challengedUser(token: string, now: Date): Promise<string | null> {
    const parsed = challengeClaims.safeParse(await this.payload(token, now));
    return parsed.success ? parsed.data.sub : null;
  }

  private async payload(token: string, now: Date): Promise<unknown> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        currentDate: now,
        requiredClaims: ['exp', 'sub', 'jti'],
      });
      return payload;
    } catch {
      return null;
    }
  }
}

export const purgeExpiredSessions = repo.deleteExpiredSessions;
