import { jwtVerify, SignJWT } from 'jose';

export const SESSION_COOKIE = 'postbox_session';
export const SESSION_SECONDS = 7 * 24 * 3600;

/** Dashboard sessions: a JWT (HS256, the instance's own key) naming the user, in an HttpOnly cookie. */
export class Sessions {
  constructor(private readonly key: Uint8Array) {}

  issue(userId: string, now: Date): Promise<string> {
    const iat = Math.floor(now.getTime() / 1000);
    return new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(userId).setIssuedAt(iat).setExpirationTime(iat + SESSION_SECONDS).sign(this.key);
  }

  /** The user a token names, or null when it is forged, expired or malformed. */
  async userOf(token: string, now: Date): Promise<string | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], currentDate: now });
      return typeof payload.sub === 'string' ? payload.sub : null;
    } catch {
      return null;
    }
  }
}
