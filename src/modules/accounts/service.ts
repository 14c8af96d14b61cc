import { generateKey, hashKey } from '../../domain/api-keys.js';
import { iso } from '../../domain/formats.js';
import { invitationMessage } from '../../domain/invitation-message.js';
import { DUMMY_HASH, hashPassword, verifyPassword } from '../../domain/passwords.js';
import type { Role } from '../../domain/roles.js';
import type { AppContext } from '../../platform/context.js';
import type { Db } from '../../platform/db/client.js';
import type { SessionResolver } from '../../platform/http/auth.js';
import { AppError, notFound, validationError } from '../../platform/http/errors.js';
import * as audit from '../audit/service.js';
import { assertVerifiedSender } from '../domains/service.js';
import * as emails from '../emails/service.js';
import * as members from '../members/service.js';
import * as projects from '../projects/service.js';
import * as twoFactor from '../two-factor/service.js';
import { assertMayCreateProject } from './instance.js';
import type { UserRow } from './repo.js';
import * as repo from './repo.js';
import type { Me, Project } from './schemas.js';
import { SESSION_COOKIE, type Session, type Sessions } from './sessions.js';

export const toUser = (u: UserRow) => ({ id: u.id, email: u.email, createdAt: iso(u.created_at) });
const toProject = (p: projects.ProjectRow, role: Role): Project => ({
  id: p.id,
  name: p.name,
  disabled: p.disabled,
  requireTwoFactor: p.require_two_factor,
  timezone: p.timezone,
  createdAt: iso(p.created_at),
  updatedAt: iso(p.updated_at),
  role,
});

/** `npm run user:create`: a new user, owner of every project without one. Null when the email is taken. */
export async function createUser(db: Db, email: string, password: string, now: Date): Promise<UserRow | null> {
  const passwordHash = await hashPassword(password);
  return db.transaction(async (tx) => {
    const user = await repo.insertUser(tx, email, passwordHash, now);
    // The first user claims the default project.
    if (user) await projects.claimOwnerless(tx, user.id, now);
    return user;
  });
}

const invalidCredentials = () => new AppError(401, 'INVALID_CREDENTIALS', 'Wrong email or password');

export async function login(ctx: AppContext, email: string, password: string): Promise<UserRow> {
  const user = await repo.findUserByEmail(ctx.db, email);
  // An unknown email costs the same hashing as a wrong password, so the answer time tells nothing.
  const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH);
  if (!user || !ok) {
    await audit.signInFailed(ctx, email, user?.id ?? null, 'password');
    throw invalidCredentials();
  }
  return user;
}

/**
 * The second step of signing in, for the user a right password named: a fresh code of their app,
 * or one of their recovery codes, each taken once.
 */
export async function secondFactor(
  ctx: AppContext,
  userId: string,
  given: { code?: string; recoveryCode?: string },
): Promise<UserRow> {
  const user = await repo.findUser(ctx.db, userId);
  const ok =
    !!user &&
    (given.code
      ? await twoFactor.checkCode(ctx, userId, given.code)
      : await twoFactor.useRecoveryCode(ctx, userId, given.recoveryCode ?? ''));
  if (!user || !ok) {
    await audit.signInFailed(ctx, user?.email ?? null, userId, 'second_factor');
    throw twoFactor.invalidCode(401, given.code ? 'code' : 'recoveryCode');
  }
  return user;
}

/** Refuses a project that requires a second factor to a session without one (404 for a non-member). */
export async function assertProjectSecondFactor(ctx: AppContext, projectId: string, session: Session): Promise<void> {
  const row = await projects.projectById(ctx.db, projectId);
  if (row) assertSecondFactor(row, session);
}

export async function me(ctx: AppContext, userId: string): Promise<Me> {
  const [user, twoFactorEnabled, requiredBy] = await Promise.all([
    repo.findUser(ctx.db, userId),
    twoFactor.isEnabled(ctx.db, userId),
    projects.projectsRequiringTwoFactor(ctx.db, userId),
  ]);
  if (!user) throw new AppError(401, 'UNAUTHENTICATED', 'Sign in again');
  return { ...toUser(user), twoFactorEnabled, twoFactorRequired: requiredBy.length > 0 };
}

/** The projects the user is a member of, each with their role in it. */
export async function listProjects(ctx: AppContext, userId: string) {
  const memberships = await members.membershipsOf(ctx.db, userId);
  const roles = new Map(memberships.map((m) => [m.project_id, m.role]));
  const rows = await projects.projectsByIds(ctx.db, [...roles.keys()]);
  return rows.map((row) => toProject(row, roles.get(row.id)!));
}

export async function createOwnedProject(ctx: AppContext, userId: string, name: string) {
  return ctx.db.transaction(async (tx) => {
    await assertMayCreateProject(tx, userId);
    const created = await projects.createProject(tx, name, userId, ctx.clock.now());
    const row = await projects.projectById(tx, created.id);
    await audit.record(tx, {
      projectId: created.id,
      action: 'project.created',
      target: { type: 'project', id: created.id },
      changes: { name },
    });
    return { ...toProject(row!, 'owner'), publicKey: created.publicKey, secretKey: created.secretKey };
  });
}

/**
 * Renaming or setting the default time zone takes an admin; disabling or enabling the project, or requiring two-factor sign-in, an
 * owner, who must have it on themselves to require it of others.
 */
export async function updateProject(
  ctx: AppContext,
  userId: string,
  id: string,
  change: { name?: string; disabled?: boolean; requireTwoFactor?: boolean; timezone?: string },
) {
  const ownerOnly = change.disabled !== undefined || change.requireTwoFactor !== undefined;
  const role = await members.requireRole(ctx.db, id, userId, ownerOnly ? 'owner' : 'admin');
  if (change.requireTwoFactor && !(await twoFactor.isEnabled(ctx.db, userId))) {
    throw new AppError(409, 'TWO_FACTOR_NOT_ENABLED', 'Turn on two-factor sign-in for your own account first', {
      suggestion: 'Enrol an authenticator app under Account → Security, then require it of the members.',
      errors: [{ field: 'requireTwoFactor', message: 'Your own account has no second factor', code: 'custom' }],
    });
  }
  const row = await audit.audited(
    ctx,
    (tx) => projects.updateProject(tx, id, change, ctx.clock.now()),
    (r) =>
      r && {
        projectId: id,
        action: 'project.updated',
        target: { type: 'project', id },
        changes: audit.fieldsOf(change),
      },
  );
  if (!row) throw notFound('Project');
  ctx.keys.clear();
  return toProject(row, role);
}

/** Both keys at once, by an owner; the old ones stop working in every process as this commits. */
export async function regenerateKeys(ctx: AppContext, userId: string, id: string) {
  const role = await members.requireRole(ctx.db, id, userId, 'owner');
  const publicKey = generateKey('public');
  const secretKey = generateKey('secret');
  const row = await audit.audited(
    ctx,
    (tx) =>
      projects.updateProject(
        tx,
        id,
        { keyHashes: { public: hashKey(publicKey), secret: hashKey(secretKey) } },
        ctx.clock.now(),
      ),
    (r) => r && { projectId: id, action: 'project.keys_regenerated', target: { type: 'project', id } },
  );
  if (!row) throw notFound('Project');
  ctx.keys.clear();
  return { ...toProject(row, role), publicKey, secretKey };
}

export const twoFactorRequired = () =>
  new AppError(403, 'TWO_FACTOR_REQUIRED', 'This project requires two-factor sign-in of its members', {
    suggestion: 'Turn on two-factor sign-in (Account → Security), or sign in again with your code.',
  });

/** Refuses a session without a second factor a project that requires one. */
export function assertSecondFactor(project: { require_two_factor: boolean }, session: Session): void {
  if (project.require_two_factor && !session.secondFactor) throw twoFactorRequired();
}

/**
 * Signed-in dashboard requests act on a project the user is a member of, as its secret key would,
 * within their role. Looked up on every request, so a member removed is refused on their next one,
 * as is a session without a second factor once the project requires one.
 */
export function sessionProjects(ctx: AppContext, sessions: Sessions): SessionResolver {
  return {
    cookie: SESSION_COOKIE,
    async resolve(token, projectId, ip) {
      const session = await sessions.verify(token, ctx.clock.now(), ip);
      const role = session && (await members.roleOf(ctx.db, projectId, session.userId));
      const row = role && (await projects.projectById(ctx.db, projectId));
      if (!row || !role || !session) return null;
      assertSecondFactor(row, session);
      return { id: row.id, name: row.name, disabled: row.disabled, keyKind: 'secret', role, userId: session.userId };
    },
  };
}

/**
 * POST /projects/{id}/invites: the invitation, and with `sendFrom` its link emailed from that
 * address (checked first, so a refused sender leaves no invitation behind). The email is the
 * project's own, sent as the project's mail is: captured locally without a relay.
 */
export async function inviteMember(
  ctx: AppContext,
  actorId: string,
  projectId: string,
  input: { email: string; role: Role; sendFrom?: string },
) {
  if (input.sendFrom) await assertVerifiedSender(ctx, ctx.db, projectId, input.sendFrom);
  const invite = await members.createInvite(ctx, actorId, projectId, input);
  if (!input.sendFrom) return invite;
  const project = await projects.projectById(ctx.db, projectId);
  const message = invitationMessage({
    projectName: project?.name ?? 'a project',
    inviterEmail: invite.invitedBy,
    role: invite.role,
    url: invite.url,
    days: members.INVITE_DAYS,
  });
  const emailId = await emails.sendToAddress(ctx, projectId, { from: input.sendFrom, to: invite.email, ...message });
  return { ...invite, emailId };
}

/** What an invitation link offers, for the page that accepts it. */
export async function previewInvite(ctx: AppContext, token: string) {
  const { invite, status } = await members.findInvite(ctx.db, token, ctx.clock.now());
  const project = await projects.projectById(ctx.db, invite.projectId);
  return {
    projectName: project?.name ?? '',
    email: invite.email,
    role: invite.role,
    invitedBy: invite.invitedBy,
    expiresAt: invite.expiresAt,
    status,
    accountExists: (await repo.findUserByEmail(ctx.db, invite.email)) !== null,
  };
}

/**
 * Accepts an invitation as the signed-in user, or, with nobody signed in, creates the invited
 * address's account with `password` and accepts as it (the caller signs it in). An existing account
 * must sign in first: a link must not set the password of someone's account.
 */
export async function acceptInvite(
  ctx: AppContext,
  token: string,
  signedIn: string | null,
  password: string | undefined,
): Promise<{ user: UserRow; created: boolean; projectId: string; role: Role }> {
  const now = ctx.clock.now();
  if (signedIn) {
    const user = await repo.findUser(ctx.db, signedIn);
    if (!user) throw new AppError(401, 'UNAUTHENTICATED', 'Sign in again');
    const accepted = await ctx.db.transaction((tx) => members.acceptInvite(tx, token, user, now));
    return { user, created: false, ...accepted };
  }
  const { invite } = members.refuseUnusable(await members.findInvite(ctx.db, token, now));
  if (await repo.findUserByEmail(ctx.db, invite.email)) throw accountExists(invite.email);
  if (password === undefined) {
    throw validationError([{ field: 'password', message: 'Required to create the account', code: 'invalid_type' }]);
  }
  const passwordHash = await hashPassword(password);
  return ctx.db.transaction(async (tx) => {
    const user = await repo.insertUser(tx, invite.email, passwordHash, now);
    if (!user) throw accountExists(invite.email);
    // A link used meanwhile is refused here, and the transaction takes the new account back.
    const accepted = await members.acceptInvite(tx, token, user, now);
    return { user, created: true, ...accepted };
  });
}

const accountExists = (email: string) =>
  new AppError(409, 'ACCOUNT_EXISTS', `${email} already has an account: sign in to accept the invitation`, {
    suggestion: 'Sign in with that address, then accept the invitation.',
  });
