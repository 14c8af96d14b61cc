import { iso } from '../../domain/formats.js';
import { hashPassword, verifyPassword } from '../../domain/passwords.js';
import { describeDevice } from '../../domain/user-agent.js';
import type { AppContext } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import * as audit from '../audit/service.js';
import * as members from '../members/service.js';
import * as twoFactor from '../two-factor/service.js';
import * as repo from './repo.js';
import type { UserSession } from './schemas.js';
import * as sessionsRepo from './sessions-repo.js';

/** A user's own sessions, ending them, and what ends them: a new password, an owner. */

const toSession = (row: sessionsRepo.SessionRow, currentId: string): UserSession => ({
  id: row.id,
  current: row.id === currentId,
  device: describeDevice(row.user_agent),
  userAgent: row.user_agent,
  ip: row.ip,
  createdAt: iso(row.created_at),
  lastSeenAt: iso(row.last_seen_at),
  expiresAt: iso(row.expires_at),
  secondFactor: row.second_factor,
});

/** The user's live sessions, the one of this request first, then the most recently seen. */
export async function listSessions(ctx: AppContext, userId: string, currentId: string): Promise<UserSession[]> {
  const rows = await sessionsRepo.liveSessionsOf(ctx.db, userId, ctx.clock.now());
  return rows.map((row) => toSession(row, currentId)).sort((a, b) => Number(b.current) - Number(a.current));
}

/** Ends one of the user's sessions (the current one too: that is signing out). */
export async function endSession(ctx: AppContext, userId: string, id: string): Promise<void> {
  const [ended] = await audit.changeAudited(ctx.db, sessionsRepo.deleteSessionStatement(userId, id), {
    projectId: null,
    action: 'session.ended',
    target: { type: 'session', id },
  });
  if (!ended) throw notFound('Session');
}

/** Turns two-factor sign-in on; the session that showed the first code counts as signed in with it. */
export async function confirmTwoFactor(ctx: AppContext, userId: string, sessionId: string, code: string) {
  const codes = await twoFactor.confirmEnrolment(ctx, userId, code);
  await sessionsRepo.markSecondFactor(ctx.db, sessionId);
  return codes;
}

/** Every other session of the user ends; this one stays. */
export async function endOtherSessions(ctx: AppContext, userId: string, currentId: string): Promise<number> {
  const ended = await audit.changeAudited(ctx.db, sessionsRepo.deleteSessionsOfStatement(userId, currentId), {
    projectId: null,
    action: 'session.others_ended',
    target: { type: 'user', id: userId },
    countAs: 'ended',
  });
  return ended.length;
}

/**
 * An owner signs a member of their project out everywhere (a lost laptop, someone leaving). Owners
 * only, since it reaches past the project: the member's sessions serve all their projects.
 */
export async function endMemberSessions(
  ctx: AppContext,
  actorId: string,
  projectId: string,
  userId: string,
): Promise<{ ended: number }> {
  await members.requireRole(ctx.db, projectId, actorId, 'owner');
  if (!(await members.roleOf(ctx.db, projectId, userId))) throw notFound('Member');
  const ended = await audit.changeAudited(ctx.db, sessionsRepo.deleteSessionsOfStatement(userId, null), {
    projectId,
    action: 'member.signed_out',
    target: { type: 'member', id: userId },
    countAs: 'ended',
  });
  return { ended: ended.length };
}

/** A new password, given the current one; every other session ends, this one stays signed in. */
export async function changePassword(
  ctx: AppContext,
  userId: string,
  currentId: string,
  input: { currentPassword: string; newPassword: string },
): Promise<{ endedSessions: number }> {
  const user = await repo.findUser(ctx.db, userId);
  if (!user) throw new AppError(401, 'UNAUTHENTICATED', 'Sign in again');
  if (!(await verifyPassword(input.currentPassword, user.password_hash))) {
    throw new AppError(403, 'INVALID_CREDENTIALS', 'The current password is not right', {
      errors: [{ field: 'currentPassword', message: 'Not your current password', code: 'custom' }],
    });
  }
  const hash = await hashPassword(input.newPassword);
  return ctx.db.transaction(async (tx) => {
    await repo.setPasswordHash(tx, userId, hash, ctx.clock.now());
    const endedSessions = await sessionsRepo.deleteSessionsOf(tx, userId, currentId);
    await audit.record(tx, { projectId: null, action: 'user.password_changed', target: { type: 'user', id: userId } });
    return { endedSessions };
  });
}
