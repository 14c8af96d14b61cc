import { generateKey, hashKey } from '../../domain/api-keys.js';
import { iso } from '../../domain/formats.js';
import { DUMMY_HASH, hashPassword, verifyPassword } from '../../domain/passwords.js';
import type { AppContext } from '../../platform/context.js';
import type { Db } from '../../platform/db/client.js';
import type { SessionResolver } from '../../platform/http/auth.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import * as projects from '../projects/service.js';
import type { UserRow } from './repo.js';
import * as repo from './repo.js';
import type { Project } from './schemas.js';
import { SESSION_COOKIE, type Sessions } from './sessions.js';

export const toUser = (u: UserRow) => ({ id: u.id, email: u.email, createdAt: iso(u.created_at) });
const toProject = (p: projects.ProjectRow): Project => ({
  id: p.id,
  name: p.name,
  disabled: p.disabled,
  createdAt: iso(p.created_at),
  updatedAt: iso(p.updated_at),
});

/** `npm run user:create`: a new user, owner of every project without one. Null when the email is taken. */
export async function createUser(db: Db, email: string, password: string, now: Date): Promise<UserRow | null> {
  const passwordHash = await hashPassword(password);
  return db.transaction(async (tx) => {
    const user = await repo.insertUser(tx, email, passwordHash, now);
    // The first user claims the default project.
    if (user) await projects.claimOwnerless(tx, user.id);
    return user;
  });
}

const invalidCredentials = () => new AppError(401, 'INVALID_CREDENTIALS', 'Wrong email or password');

export async function login(ctx: AppContext, email: string, password: string): Promise<UserRow> {
  const user = await repo.findUserByEmail(ctx.db, email);
  // An unknown email costs the same hashing as a wrong password, so the answer time tells nothing.
  const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH);
  if (!user || !ok) throw invalidCredentials();
  return user;
}

export async function me(ctx: AppContext, userId: string) {
  const user = await repo.findUser(ctx.db, userId);
  if (!user) throw new AppError(401, 'UNAUTHENTICATED', 'Sign in again');
  return toUser(user);
}

export async function listProjects(ctx: AppContext, userId: string) {
  return (await projects.ownedProjects(ctx.db, userId)).map(toProject);
}

export async function createOwnedProject(ctx: AppContext, userId: string, name: string) {
  return ctx.db.transaction(async (tx) => {
    const created = await projects.createProject(tx, name, userId);
    const row = await projects.ownedProject(tx, userId, created.id);
    return { ...toProject(row!), publicKey: created.publicKey, secretKey: created.secretKey };
  });
}

export async function updateProject(
  ctx: AppContext,
  userId: string,
  id: string,
  change: { name?: string; disabled?: boolean },
) {
  const row = await projects.updateOwnedProject(ctx.db, userId, id, change, ctx.clock.now());
  if (!row) throw notFound('Project');
  ctx.keys.clear();
  return toProject(row);
}

/** Both keys at once; the old ones stop working in every process as this commits. */
export async function regenerateKeys(ctx: AppContext, userId: string, id: string) {
  const publicKey = generateKey('public');
  const secretKey = generateKey('secret');
  const row = await ctx.db.transaction((tx) =>
    projects.updateOwnedProject(
      tx,
      userId,
      id,
      { keyHashes: { public: hashKey(publicKey), secret: hashKey(secretKey) } },
      ctx.clock.now(),
    ),
  );
  if (!row) throw notFound('Project');
  ctx.keys.clear();
  return { ...toProject(row), publicKey, secretKey };
}

/** Signed-in dashboard requests act on a project of the user's own, as its secret key would. */
export function sessionProjects(ctx: AppContext, sessions: Sessions): SessionResolver {
  return {
    cookie: SESSION_COOKIE,
    async resolve(token, projectId) {
      const session = await sessions.verify(token, ctx.clock.now());
      const row = session && (await projects.ownedProject(ctx.db, session.userId, projectId));
      return row ? { id: row.id, name: row.name, disabled: row.disabled, keyKind: 'secret' } : null;
    },
  };
}
