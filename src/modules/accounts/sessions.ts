import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';
import { type Executor, run } from '../../platform/db/client.js';

export const SESSION_COOKIE = 'postbox_session';
export const SESSION_SECONDS = 7 * 24 * 3600;

/** What a session token must carry; anything else is not a session of this service. */
const claims = z.object({ sub: z.string().uuid(), jti: z.string().uuid(), exp: z.number().int() });

export interface Session {
  userId: string;
  id: string;
  expiresAt: Date;
}

/**
 * Dashboard sessions: a JWT (HS256, the instance's own key) naming the user, in an HttpOnly cookie.
 * Signing out records the token's id until it expires, so a copy of the cookie is worthless after.
 */
export class Sessions {
  constructor(
    private readonly key: Uint8Array,
    private readonly db: Executor,
  ) {}

  issue(userId: string, now: Date): Promise<string> {
    const iat = Math.floor(now.getTime() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(userId)
      .setJti(randomUUID())
      .setIssuedAt(iat)
      .setExpirationTime(iat + SESSION_SECONDS)
      .sign(this.key);
  }

  /** The session a token stands for, or null when it is forged, expired, malformed or signed out. */
  async verify(token: string, now: Date): Promise<Session | null> {
    let payload: unknown;
    try {
      ({ payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        currentDate: now,
        requiredClaims: ['exp', 'sub', 'jti'],
      }));
    } catch {
      return null;
    }
    const parsed = claims.safeParse(payload);
    if (!parsed.success) return null;
    const revoked = await run(this.db, sql`select 1 from revoked_sessions where id = ${parsed.data.jti}`, {
      prepared: true,
    });
    if (revoked.rows.length > 0) return null;
    return { userId: parsed.data.sub, id: parsed.data.jti, expiresAt: new Date(parsed.data.exp * 1000) };
  }

  async revoke(session: Session): Promise<void> {
    await run(
      this.db,
      sql`insert into revoked_sessions (id, expires_at) values (${session.id}, ${session.expiresAt})
        on conflict do nothing`,
    );
  }
}

export async function purgeRevokedSessions(ex: Executor, now: Date): Promise<void> {
  await run(ex, sql`delete from revoked_sessions where expires_at <= ${now}`);
}
