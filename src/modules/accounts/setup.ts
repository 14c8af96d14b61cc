import { timingSafeEqual } from 'node:crypto';
import { hashPassword } from '../../domain/passwords.js';
import type { AppContext } from '../../platform/context.js';
import type { Db } from '../../platform/db/client.js';
import { AppError } from '../../platform/http/errors.js';
import { instanceSecret } from '../../platform/secrets.js';
import * as audit from '../audit/service.js';
import * as projects from '../projects/service.js';
import * as repo from './repo.js';

/**
 * A fresh instance is claimed in the browser by whoever holds its setup token: `npm start` prints
 * it on the terminal while no user exists, so nobody else on the network can take the instance
 * first. Null once the owner exists.
 */
export async function setupToken(db: Db): Promise<string | null> {
  if (await repo.anyUser(db)) return null;
  return (await instanceSecret(db, 'setup-token')).toString('base64url');
}

export async function setupRequired(ctx: AppContext): Promise<{ required: boolean }> {
  return { required: !(await repo.anyUser(ctx.db)) };
}

/** Creates the owner account, who takes over every project without an owner (the default one). */
export async function setUpOwner(ctx: AppContext, input: { token: string; email: string; password: string }) {
  const expected = Buffer.from((await instanceSecret(ctx.db, 'setup-token')).toString('base64url'));
  const given = Buffer.from(input.token);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new AppError(403, 'INVALID_SETUP_TOKEN', 'This is not the setup token of this instance', {
      suggestion: 'Copy the setup token that `npm start` printed on the terminal.',
      errors: [{ field: 'token', message: 'Not the setup token printed by npm start', code: 'custom' }],
    });
  }
  const passwordHash = await hashPassword(input.password);
  return ctx.db.transaction(async (tx) => {
    await repo.lockSetup(tx);
    if (await repo.anyUser(tx)) throw alreadySetUp();
    const user = await repo.insertUser(tx, input.email, passwordHash, ctx.clock.now());
    if (!user) throw alreadySetUp();
    await projects.claimOwnerless(tx, user.id, ctx.clock.now());
    await audit.record(tx, {
      projectId: null,
      action: 'instance.set_up',
      target: { type: 'user', id: user.id },
      actor: { kind: 'user', id: user.id, name: user.email },
    });
    return user;
  });
}

const alreadySetUp = () =>
  new AppError(409, 'ALREADY_SET_UP', 'This instance already has its owner', {
    suggestion: 'Sign in instead.',
  });
