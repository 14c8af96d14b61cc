import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import * as audit from '../audit/service.js';
import * as repo from './repo.js';
import type { InstanceSettings, Permissions, ProjectCreation } from './schemas.js';

/**
 * The instance's own settings, kept by its instance admins: the first user (who set the instance up)
 * and whom an instance admin names. Today one setting: who may create projects, since every project
 * has keys of its own that send through the operator's relay.
 */

const instanceAdminRequired = () =>
  new AppError(403, 'INSTANCE_ADMIN_REQUIRED', 'Only an instance admin may read or change the instance settings', {
    suggestion: 'Ask the person who set up this instance.',
  });

export async function requireInstanceAdmin(ex: Executor, userId: string): Promise<void> {
  if (!(await repo.isInstanceAdmin(ex, userId))) throw instanceAdminRequired();
}

export async function permissions(ctx: AppContext, userId: string): Promise<Permissions> {
  const [instanceAdmin, creation] = await Promise.all([
    repo.isInstanceAdmin(ctx.db, userId),
    repo.projectCreation(ctx.db),
  ]);
  return { instanceAdmin, createProjects: instanceAdmin || creation === 'everyone' };
}

/** Refuses a new project to a user the setting does not let create one. */
export async function assertMayCreateProject(ex: Executor, userId: string): Promise<void> {
  if ((await repo.projectCreation(ex)) === 'everyone' || (await repo.isInstanceAdmin(ex, userId))) return;
  throw new AppError(403, 'PROJECT_CREATION_RESTRICTED', 'On this instance, only instance admins create projects', {
    suggestion: 'Ask an instance admin to create the project and invite you to it.',
  });
}

async function read(ex: Executor): Promise<InstanceSettings> {
  const [projectCreation, admins] = await Promise.all([repo.projectCreation(ex), repo.instanceAdmins(ex)]);
  return { projectCreation, admins: admins.map((a) => ({ userId: a.id, email: a.email, first: a.first })) };
}

export async function settings(ctx: AppContext, userId: string): Promise<InstanceSettings> {
  await requireInstanceAdmin(ctx.db, userId);
  return read(ctx.db);
}

export async function updateSettings(
  ctx: AppContext,
  userId: string,
  change: { projectCreation: ProjectCreation },
): Promise<InstanceSettings> {
  await requireInstanceAdmin(ctx.db, userId);
  const before = (await read(ctx.db)).projectCreation;
  await audit.audited(
    ctx,
    (tx) => repo.setProjectCreation(tx, change.projectCreation, ctx.clock.now()),
    () => ({
      projectId: null,
      action: 'instance.settings_updated',
      target: { type: 'instance', id: null },
      changes: audit.settingsDiff({ projectCreation: before }, change),
    }),
  );
  return read(ctx.db);
}

/** Names the user with this address an instance admin. */
export async function addAdmin(ctx: AppContext, actorId: string, email: string): Promise<InstanceSettings> {
  await requireInstanceAdmin(ctx.db, actorId);
  const user = await repo.findUserByEmail(ctx.db, email);
  if (!user) {
    throw new AppError(404, 'USER_NOT_FOUND', `Nobody has an account with ${email}`, {
      suggestion: 'Invite them to a project first; they can be named once they have an account.',
      errors: [{ field: 'email', message: 'No account with this address', code: 'custom' }],
    });
  }
  await audit.audited(
    ctx,
    (tx) => repo.setInstanceAdmin(tx, user.id, true, ctx.clock.now()),
    () => ({
      projectId: null,
      action: 'instance.admin_added',
      target: { type: 'user', id: user.id },
      changes: { email },
    }),
  );
  return read(ctx.db);
}

/** Un-names an instance admin; the first one stays, so the instance always keeps one. */
export async function removeAdmin(ctx: AppContext, actorId: string, userId: string): Promise<InstanceSettings> {
  await requireInstanceAdmin(ctx.db, actorId);
  const admin = (await repo.instanceAdmins(ctx.db)).find((a) => a.id === userId);
  if (!admin) throw notFound('Instance admin');
  if (admin.first) {
    throw new AppError(409, 'FIRST_INSTANCE_ADMIN', 'The user who set up the instance is always an instance admin');
  }
  await audit.audited(
    ctx,
    (tx) => repo.setInstanceAdmin(tx, userId, false, ctx.clock.now()),
    () => ({ projectId: null, action: 'instance.admin_removed', target: { type: 'user', id: userId } }),
  );
  return read(ctx.db);
}
