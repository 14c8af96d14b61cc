import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../platform/http/errors.js';

/** How long a confirmation token may be presented after the first call. */
export const CONFIRMATION_TTL_MS = 10 * 60 * 1000;

/** What a token stands for: one action of one project with exactly these arguments. */
export interface ConfirmedAction {
  projectId: string;
  tool: string;
  args: unknown;
}

/** JSON with the keys of every object sorted, so equal arguments always give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const digest = (text: string) => createHash('sha256').update(text).digest('base64url');

/**
 * Stateless confirmation tokens: `<expiry ms>.<HMAC>` over the project, the tool, a digest of the
 * arguments and the expiry. Any API replica can check one (the key is the instance's secret), and
 * a token confirms only the very call that was previewed: other arguments, another tool or another
 * project do not match.
 */
export class Confirmations {
  constructor(private readonly key: Buffer) {}

  issue(action: ConfirmedAction, now: Date): { token: string; expiresAt: string } {
    const expires = now.getTime() + CONFIRMATION_TTL_MS;
    return { token: `${expires}.${this.mac(action, expires)}`, expiresAt: new Date(expires).toISOString() };
  }

  /** Throws a 409 naming why the token does not confirm this action (wrong, expired). */
  check(token: string, action: ConfirmedAction, now: Date): void {
    const match = /^(\d{13,15})\.([\w-]{43})$/.exec(token);
    const expires = match ? Number(match[1]) : 0;
    const given = Buffer.from(match?.[2] ?? '', 'base64url');
    const expected = Buffer.from(this.mac(action, expires), 'base64url');
    if (!match || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw confirmationError(
        'CONFIRMATION_INVALID',
        'This confirmation token does not confirm this call: the arguments, the tool or the project differ',
      );
    }
    if (expires <= now.getTime()) {
      throw confirmationError('CONFIRMATION_EXPIRED', 'This confirmation token has expired');
    }
  }

  /** A key for the action's idempotency: presenting the same token twice performs it once. */
  static idempotencyKey(token: string): string {
    return `mcp-confirmation:${digest(token)}`;
  }

  private mac(action: ConfirmedAction, expires: number): string {
    return createHmac('sha256', this.key)
      .update(`${action.projectId}\n${action.tool}\n${digest(canonicalJson(action.args))}\n${expires}`)
      .digest('base64url');
  }
}

const confirmationError = (code: string, message: string) =>
  new AppError(409, code, message, {
    suggestion: 'Call the tool again without confirmationToken to see the message again and get a new token.',
  });
