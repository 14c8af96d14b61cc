import { createHash, randomBytes } from 'node:crypto';
import { iso } from '../../domain/formats.js';
import { ROLES, type Role, roleAtLeast } from '../../domain/roles.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import { forbiddenRole } from '../../platform/http/auth.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import * as audit from '../audit/service.js';
import * as repo from './repo.js';
import type { ChangedMember, CreatedInvite, Invite, Member, WithdrawnInvites } from './schemas.js';

/**
 * Who may do what in a project (docs/decisions.md, ## Accounts): members do the everyday work,
 * admins also manage members and admins, owners also manage owners, keys and the project's state.
 * A project always keeps an owner.
 */

export const INVITE_DAYS = 7;

const toMember = (m: repo.MemberRow): Member => ({
  userId: m.user_id,
  email: m.email,
  role: m.role,
  createdAt: iso(m.created_at),
  twoFactor: m.two_factor,
});
const toInvite = (i: repo.InviteRow): Invite => ({
  id: i.id,
  projectId: i.project_id,
  email: i.email,
  role: i.role,
  invitedBy: i.inviter_email,
  createdAt: iso(i.created_at),
  expiresAt: iso(i.expires_at),
});

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** The user becomes an owner of these projects (a project they made, or claimed on a new instance). */
export function addOwner(ex: Executor, projectIds: readonly string[], userId: string, now: Date): Promise<void> {
  return repo.insertMembers(ex, projectIds, userId, 'owner', now);
}

/** The user joins the project with `role` (an account made by single sign-on); a member keeps their role. */
export function addMember(ex: Executor, projectId: string, userId: string, role: Role, now: Date): Promise<void> {
  return repo.insertMembers(ex, [projectId], userId, role, now);
}

/**
 * Accepts every pending invitation of the user's address, as its links would: for an account that
 * single sign-on makes for an invited address. One its inviter may no longer grant is left alone.
 */
export async function acceptPendingInvites(tx: Executor, user: { id: string; email: string }, now: Date) {
  for (const invite of await repo.pendingInvitesOf(tx, user.email, now)) {
    await repo.lockMembers(tx, invite.project_id);
    const inviterRole = await repo.roleOf(tx, invite.project_id, invite.invited_by ?? '');
    if (!mayGrant(inviterRole, invite.role) || !(await repo.markAccepted(tx, invite.id, now))) continue;
    await repo.upsertMember(tx, invite.project_id, user.id, invite.role, now);
  }
}

export const roleOf = repo.roleOf;
export const membershipsOf = repo.membershipsOf;

/**
 * The user's role in the project, when it is at least `needed`. A project the user is not a member
 * of is a 404, as if it did not exist; one where their role is too weak is a 403 saying which it takes.
 */
export async function requireRole(ex: Executor, projectId: string, userId: string, needed: Role): Promise<Role> {
  const role = await repo.roleOf(ex, projectId, userId);
  if (!role) throw notFound('Project');
  if (!roleAtLeast(role, needed)) throw forbiddenRole(needed, role);
  return role;
}

export async function listMembers(ctx: AppContext, actorId: string, projectId: string): Promise<Member[]> {
  await requireRole(ctx.db, projectId, actorId, 'member');
  return (await repo.listMembers(ctx.db, projectId)).map(toMember);
}

/** The role it takes to give `role` to someone: an admin gives member and admin, only an owner gives owner. */
const neededToGrant = (role: Role): Role => (role === 'owner' ? 'owner' : 'admin');
const mayGrant = (granter: Role | null | undefined, role: Role) =>
  !!granter && roleAtLeast(granter, neededToGrant(role));

/** Admins manage members and admins; only an owner makes, changes or removes an owner. */
function checkManage(actor: Role, targetRole: Role, newRole?: Role): void {
  const needed = targetRole === 'owner' ? 'owner' : neededToGrant(newRole ?? targetRole);
  if (!roleAtLeast(actor, needed)) throw forbiddenRole(needed, actor);
}

const lastOwner = (leaving: boolean) =>
  new AppError(
    409,
    'LAST_OWNER',
    leaving
      ? 'The last owner cannot leave the project: make another member an owner first'
      : 'A project needs an owner: make another member an owner before this one stops being one',
    { suggestion: 'Give the owner role to another member, then try again.' },
  );

/**
 * Applies a change to the project's members under their lock, refusing one that leaves no owner. The
 * pending invitations the member made and may no longer grant (all, when they go) are withdrawn with
 * it and returned: someone about to be removed must not keep a way back in.
 */
async function changeMembers(
  ctx: AppContext,
  actorId: string,
  projectId: string,
  targetId: string,
  change: { role: Role } | 'remove',
): Promise<Invite[]> {
  return ctx.db.transaction(async (tx) => {
    const members = await repo.lockMembers(tx, projectId);
    const actor = members.find((m) => m.user_id === actorId);
    if (!actor) throw notFound('Project');
    const target = members.find((m) => m.user_id === targetId);
    if (!target) throw notFound('Member');
    const leaving = change === 'remove' && targetId === actorId;
    // Anyone may leave; every other change is managing members.
    if (!leaving) checkManage(actor.role, target.role, change === 'remove' ? undefined : change.role);
    const owners = members.filter((m) => m.role === 'owner' && m.user_id !== targetId).length;
    const staysOwner = change !== 'remove' && change.role === 'owner';
    if (target.role === 'owner' && !staysOwner && owners === 0) throw lastOwner(change === 'remove');
    if (change === 'remove') await repo.deleteMember(tx, projectId, targetId);
    else await repo.setRole(tx, projectId, targetId, change.role);
    const lost = ROLES.filter((role) => change === 'remove' || !mayGrant(change.role, role));
    const withdrawn = (await repo.withdrawInvitesBy(tx, projectId, targetId, lost)).map(toInvite);
    await audit.record(tx, {
      projectId,
      action: change === 'remove' ? (leaving ? 'member.left' : 'member.removed') : 'member.role_changed',
      target: { type: 'member', id: targetId },
      changes: {
        ...(change === 'remove' ? { role: target.role } : { values: { role: [target.role, change.role] } }),
        ...(withdrawn.length > 0 ? { withdrawnInvites: withdrawn.length } : {}),
      },
    });
    return withdrawn;
  });
}

export async function changeRole(
  ctx: AppContext,
  actorId: string,
  projectId: string,
  userId: string,
  role: Role,
): Promise<ChangedMember> {
  const withdrawnInvites = await changeMembers(ctx, actorId, projectId, userId, { role });
  const member = (await repo.listMembers(ctx.db, projectId)).find((m) => m.user_id === userId);
  if (!member) throw notFound('Member');
  return { ...toMember(member), withdrawnInvites };
}

/** Removes a member, or the actor themselves (leaving); their next request to the project is refused. */
export async function removeMember(
  ctx: AppContext,
  actorId: string,
  projectId: string,
  userId: string,
): Promise<WithdrawnInvites> {
  return { withdrawnInvites: await changeMembers(ctx, actorId, projectId, userId, 'remove') };
}

const inviteUrl = (ctx: AppContext, token: string) => `${ctx.config.publicUrl.replace(/\/$/, '')}/app/invite/${token}`;

/** An invitation by link, valid for INVITE_DAYS; the link is in the answer only. */
export async function createInvite(
  ctx: AppContext,
  actorId: string,
  projectId: string,
  input: { email: string; role: Role },
): Promise<CreatedInvite> {
  const token = randomBytes(32).toString('base64url');
  const now = ctx.clock.now();
  const row = await ctx.db.transaction(async (tx) => {
    const members = await repo.lockMembers(tx, projectId);
    const actor = members.find((m) => m.user_id === actorId);
    if (!actor) throw notFound('Project');
    checkManage(actor.role, 'member', input.role);
    const existing = await repo.listMembers(tx, projectId);
    if (existing.some((m) => m.email === input.email)) {
      throw new AppError(409, 'ALREADY_MEMBER', `${input.email} is already a member of this project`, {
        suggestion: 'Change their role in the member list instead.',
      });
    }
    await repo.deletePendingInvites(tx, projectId, input.email);
    const invite = await repo.insertInvite(tx, {
      projectId,
      email: input.email,
      role: input.role,
      tokenHash: hashToken(token),
      invitedBy: actorId,
      now,
      expiresAt: new Date(now.getTime() + INVITE_DAYS * 24 * 3600_000),
    });
    await audit.record(tx, {
      projectId,
      action: 'invitation.created',
      target: { type: 'invitation', id: invite.id },
      changes: { email: input.email, role: input.role },
    });
    return invite;
  });
  return { ...toInvite(row), url: inviteUrl(ctx, token) };
}

export async function listInvites(ctx: AppContext, actorId: string, projectId: string): Promise<Invite[]> {
  await requireRole(ctx.db, projectId, actorId, 'admin');
  return (await repo.pendingInvites(ctx.db, projectId, ctx.clock.now())).map(toInvite);
}

/** Withdraws an invitation, so its link opens nothing; an owner's invitation only by an owner. */
export async function revokeInvite(ctx: AppContext, actorId: string, projectId: string, inviteId: string) {
  const actor = await requireRole(ctx.db, projectId, actorId, 'admin');
  const invite = await repo.inviteById(ctx.db, projectId, inviteId);
  if (!invite || invite.accepted_at) throw notFound('Invitation');
  checkManage(actor, 'member', invite.role);
  await ctx.db.transaction(async (tx) => {
    await repo.deleteInvite(tx, inviteId);
    await audit.record(tx, {
      projectId,
      action: 'invitation.revoked',
      target: { type: 'invitation', id: inviteId },
      changes: { email: invite.email, role: invite.role },
    });
  });
}

export type InviteStatus = 'pending' | 'expired' | 'accepted';
export interface FoundInvite {
  invite: Invite;
  status: InviteStatus;
}

const inviteNotFound = () =>
  new AppError(404, 'INVITE_NOT_FOUND', 'This invitation link is not valid: it was withdrawn, replaced or mistyped', {
    suggestion: 'Ask the person who invited you for a new link.',
  });

/**
 * The invitation a link stands for, in whatever state it is. One whose inviter may no longer grant
 * its role (removed or demoted since) is withdrawn, as if it had been deleted with the change.
 */
export async function findInvite(ex: Executor, token: string, now: Date): Promise<FoundInvite> {
  const row = await repo.inviteByTokenHash(ex, hashToken(token));
  if (!row || (!row.accepted_at && !mayGrant(row.inviter_role, row.role))) throw inviteNotFound();
  const expired = new Date(row.expires_at).getTime() <= now.getTime();
  const status: InviteStatus = row.accepted_at ? 'accepted' : expired ? 'expired' : 'pending';
  return { invite: toInvite(row), status };
}

/**
 * Accepts an invitation for a user whose address is the invited one: they become a member with its
 * role (a member already keeps a stronger role). Each link is accepted once, before it expires, and
 * only while the person who made it may still grant its role.
 */
export async function acceptInvite(
  tx: Executor,
  token: string,
  user: { id: string; email: string },
  now: Date,
): Promise<{ projectId: string; role: Role }> {
  // The members are locked first, so the inviter cannot be removed or demoted between the check and the join.
  const row = await repo.inviteByTokenHash(tx, hashToken(token));
  if (row) await repo.lockMembers(tx, row.project_id);
  const { invite } = refuseUnusable(await findInvite(tx, token, now));
  if (user.email !== invite.email) {
    throw new AppError(403, 'INVITE_EMAIL_MISMATCH', `This invitation is for ${invite.email}; you are ${user.email}`, {
      suggestion: `Sign out, then open the link again and sign in (or create the account) as ${invite.email}.`,
    });
  }
  // Two accepts at once: only the first marks it, the second finds it used.
  if (!(await repo.markAccepted(tx, invite.id, now))) {
    throw new AppError(410, 'INVITE_USED', 'This invitation has already been accepted');
  }
  await repo.upsertMember(tx, invite.projectId, user.id, invite.role, now);
  await audit.record(tx, {
    projectId: invite.projectId,
    action: 'invitation.accepted',
    target: { type: 'member', id: user.id },
    changes: { invitationId: invite.id, role: invite.role },
    actor: { kind: 'user', id: user.id, name: user.email },
  });
  return { projectId: invite.projectId, role: (await repo.roleOf(tx, invite.projectId, user.id))! };
}

/** The invitation, when it can still be accepted; a used or expired one is refused with 410. */
export function refuseUnusable(found: FoundInvite): FoundInvite {
  const { invite, status } = found;
  if (status === 'accepted') {
    throw new AppError(410, 'INVITE_USED', 'This invitation has already been accepted', {
      suggestion: 'Sign in to open the project, or ask for a new invitation.',
    });
  }
  if (status === 'expired') {
    throw new AppError(410, 'INVITE_EXPIRED', `This invitation expired on ${invite.expiresAt}`, {
      suggestion: 'Ask the person who invited you for a new link.',
    });
  }
  return found;
}
