import { sql } from 'drizzle-orm';
import type { Role } from '../../domain/roles.js';
import { type Executor, run } from '../../platform/db/client.js';

/**
 * Every query on `project_members` and `project_invites` lives here. Member lists read `users` in
 * the same query for the address beside each member (users belong to accounts), and whether they
 * sign in with a second factor (`user_two_factor`, of the two-factor module).
 */

export interface MemberRow {
  user_id: string;
  email: string;
  role: Role;
  created_at: Date;
  two_factor: boolean;
}

export interface InviteRow {
  id: string;
  project_id: string;
  email: string;
  role: Role;
  invited_by: string | null;
  inviter_email: string | null;
  /** The inviter's role in the project now; null once they left it. */
  inviter_role: Role | null;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
}

export async function insertMembers(
  ex: Executor,
  projectIds: readonly string[],
  userId: string,
  role: Role,
  now: Date,
): Promise<void> {
  if (projectIds.length === 0) return;
  await run(
    ex,
    sql`insert into project_members (project_id, user_id, role, created_at)
      select unnest(${`{${projectIds.join(',')}}`}::uuid[]), ${userId}, ${role}, ${now}
      on conflict (project_id, user_id) do nothing`,
  );
}

export async function roleOf(ex: Executor, projectId: string, userId: string): Promise<Role | null> {
  const r = await run<{ role: Role }>(
    ex,
    sql`select role from project_members where project_id = ${projectId} and user_id = ${userId}`,
    { prepared: true },
  );
  return r.rows[0]?.role ?? null;
}

export async function membershipsOf(ex: Executor, userId: string): Promise<{ project_id: string; role: Role }[]> {
  const r = await run<{ project_id: string; role: Role }>(
    ex,
    sql`select project_id, role from project_members where user_id = ${userId}`,
  );
  return r.rows;
}

export async function listMembers(ex: Executor, projectId: string): Promise<MemberRow[]> {
  const r = await run<MemberRow>(
    ex,
    sql`select m.user_id, u.email, m.role, m.created_at,
        exists (select 1 from user_two_factor t where t.user_id = m.user_id and t.enabled_at is not null) as two_factor
      from project_members m join users u on u.id = m.user_id
      where m.project_id = ${projectId}
      order by case m.role when 'owner' then 0 when 'admin' then 1 else 2 end, u.email`,
  );
  return r.rows;
}

/**
 * The project's members, locked until the transaction ends: two changes that each leave one owner
 * (two owners demoting each other at once) are taken one after the other, so neither leaves none.
 */
export async function lockMembers(ex: Executor, projectId: string): Promise<{ user_id: string; role: Role }[]> {
  const r = await run<{ user_id: string; role: Role }>(
    ex,
    sql`select user_id, role from project_members where project_id = ${projectId} order by user_id for update`,
  );
  return r.rows;
}

export async function setRole(ex: Executor, projectId: string, userId: string, role: Role): Promise<void> {
  await run(ex, sql`update project_members set role = ${role} where project_id = ${projectId} and user_id = ${userId}`);
}

export async function deleteMember(ex: Executor, projectId: string, userId: string): Promise<void> {
  await run(ex, sql`delete from project_members where project_id = ${projectId} and user_id = ${userId}`);
}

const inviteColumns = sql`i.id, i.project_id, i.email, i.role, i.invited_by, u.email as inviter_email,
  (select m.role from project_members m where m.project_id = i.project_id and m.user_id = i.invited_by) as inviter_role,
  i.created_at, i.expires_at, i.accepted_at`;

export async function insertInvite(
  ex: Executor,
  v: { projectId: string; email: string; role: Role; tokenHash: string; invitedBy: string; now: Date; expiresAt: Date },
): Promise<InviteRow> {
  const r = await run<InviteRow>(
    ex,
    sql`with i as (
      insert into project_invites (project_id, email, role, token_hash, invited_by, created_at, expires_at)
      values (${v.projectId}, ${v.email}, ${v.role}, ${v.tokenHash}, ${v.invitedBy}, ${v.now}, ${v.expiresAt})
      returning *)
    select ${inviteColumns} from i left join users u on u.id = i.invited_by`,
  );
  return r.rows[0]!;
}

/** A newer invitation of the same address replaces the pending one, so only one link works. */
export async function deletePendingInvites(ex: Executor, projectId: string, email: string): Promise<void> {
  await run(
    ex,
    sql`delete from project_invites where project_id = ${projectId} and email = ${email} and accepted_at is null`,
  );
}

export async function pendingInvites(ex: Executor, projectId: string, now: Date): Promise<InviteRow[]> {
  const r = await run<InviteRow>(
    ex,
    sql`select ${inviteColumns} from project_invites i left join users u on u.id = i.invited_by
      where i.project_id = ${projectId} and i.accepted_at is null and i.expires_at > ${now}
      order by i.created_at desc, i.id`,
  );
  return r.rows;
}

/** The pending, unexpired invitations of an address, in every project. */
export async function pendingInvitesOf(ex: Executor, email: string, now: Date): Promise<InviteRow[]> {
  const r = await run<InviteRow>(
    ex,
    sql`select ${inviteColumns} from project_invites i left join users u on u.id = i.invited_by
      where i.email = ${email} and i.accepted_at is null and i.expires_at > ${now}
      order by i.created_at, i.id`,
  );
  return r.rows;
}

export async function inviteByTokenHash(ex: Executor, tokenHash: string): Promise<InviteRow | null> {
  const r = await run<InviteRow>(
    ex,
    sql`select ${inviteColumns} from project_invites i left join users u on u.id = i.invited_by
      where i.token_hash = ${tokenHash}`,
  );
  return r.rows[0] ?? null;
}

export async function inviteById(ex: Executor, projectId: string, id: string): Promise<InviteRow | null> {
  const r = await run<InviteRow>(
    ex,
    sql`select ${inviteColumns} from project_invites i left join users u on u.id = i.invited_by
      where i.project_id = ${projectId} and i.id = ${id}`,
  );
  return r.rows[0] ?? null;
}

/**
 * Withdraws the pending invitations `inviterId` made of a role in `roles` (those they may no longer
 * grant), returning them.
 */
export async function withdrawInvitesBy(
  ex: Executor,
  projectId: string,
  inviterId: string,
  roles: readonly Role[],
): Promise<InviteRow[]> {
  if (roles.length === 0) return [];
  const r = await run<InviteRow>(
    ex,
    sql`with i as (
      delete from project_invites
      where project_id = ${projectId} and invited_by = ${inviterId} and accepted_at is null
        and role = any(${`{${roles.join(',')}}`}::text[])
      returning *)
    select ${inviteColumns} from i left join users u on u.id = i.invited_by
    order by i.created_at, i.id`,
  );
  return r.rows;
}

export async function deleteInvite(ex: Executor, id: string): Promise<void> {
  await run(ex, sql`delete from project_invites where id = ${id}`);
}

/** Marks a pending, unexpired invitation used; false when another request used it first or it expired. */
export async function markAccepted(ex: Executor, id: string, now: Date): Promise<boolean> {
  const r = await run(
    ex,
    sql`update project_invites set accepted_at = ${now}
      where id = ${id} and accepted_at is null and expires_at > ${now} returning id`,
  );
  return r.rows.length > 0;
}

/** Adds the member, or raises their role to the invitation's: accepting never lowers a role. */
export async function upsertMember(ex: Executor, projectId: string, userId: string, role: Role, now: Date) {
  await run(
    ex,
    sql`insert into project_members as m (project_id, user_id, role, created_at)
      values (${projectId}, ${userId}, ${role}, ${now})
      on conflict (project_id, user_id) do update set role = case
        when array_position(array['member','admin','owner'], excluded.role)
           > array_position(array['member','admin','owner'], m.role) then excluded.role
        else m.role end`,
  );
}
