import { randomBytes } from 'node:crypto';
import { hashPassword } from '../../domain/passwords.js';
import type { SsoSettings } from '../../domain/sso.js';
import type { AppContext } from '../../platform/context.js';
import * as members from '../members/service.js';
import * as sso from '../sso/service.js';
import type { UserRow } from './repo.js';
import * as repo from './repo.js';

/**
 * The account an address verified by the provider signs in to (docs/decisions.md, "Single sign-on
 * accounts"): the account with that address, whether it was made with a password, by an invitation
 * or by an earlier sign-in; otherwise a new one, which joins the configured project with the
 * configured role and accepts the address's pending invitations. Memberships are given only then.
 */
export async function ssoAccount(ctx: AppContext, settings: SsoSettings, email: string): Promise<UserRow> {
  const existing = await repo.findUserByEmail(ctx.db, email);
  if (existing) return existing;
  // The instance is claimed with its setup token first, never by whoever signs in first.
  if (!(await repo.anyUser(ctx.db))) throw new sso.SsoFailed('not_set_up');
  const project = settings.project ? await sso.configuredProject(ctx.db, settings.project) : null;
  if (settings.project && !project) {
    throw new sso.SsoFailed('misconfigured', `OIDC_PROJECT "${settings.project}" names no project (or several)`);
  }
  // A password nobody knows: the account signs in through the provider.
  const passwordHash = await hashPassword(randomBytes(32).toString('base64url'));
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const user = await repo.insertUser(tx, email, passwordHash, now);
    // Two first sign-ins at once: the other one made the account.
    if (!user) return (await repo.findUserByEmail(tx, email))!;
    if (project) await members.addMember(tx, project.id, user.id, settings.role, now);
    await members.acceptPendingInvites(tx, user, now);
    return user;
  });
}
