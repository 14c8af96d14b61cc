import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../platform/context.js';
import { notify, run, type Db } from '../../platform/db/client.js';
import { PROJECTS_CHANGED } from './key-cache.js';
import { projects } from '../../platform/db/schema.js';
import { generateKey, hashKey, keyKindOf, type KeyKind } from '../../domain/api-keys.js';

export interface ProjectWithKeys {
  id: string;
  name: string;
  publicKey: string;
  secretKey: string;
}

export interface AuthenticatedProject {
  id: string;
  name: string;
  disabled: boolean;
  keyKind: KeyKind;
}

export async function createProject(db: Db, name: string): Promise<ProjectWithKeys> {
  const publicKey = generateKey('public');
  const secretKey = generateKey('secret');
  const [row] = await db
    .insert(projects)
    .values({ name, publicKeyHash: hashKey(publicKey), secretKeyHash: hashKey(secretKey) })
    .returning({ id: projects.id, name: projects.name });
  return { id: row!.id, name: row!.name, publicKey, secretKey };
}

/** Creates the default project when the database has none; returns it only then. */
export async function ensureDefaultProject(db: Db): Promise<ProjectWithKeys | null> {
  return db.transaction(async (tx) => {
    // Two processes starting on one empty database must not both create a project.
    await run(tx, sql`select pg_advisory_xact_lock(727002)`);
    const [existing] = await tx.select({ id: projects.id }).from(projects).limit(1);
    if (existing) return null;
    const project = await createProject(tx as unknown as Db, 'Default project');
    // A user made before the first start (`user:create`) owns it, as they would have claimed it.
    await run(tx, sql`update projects set owner_id = (select id from users order by created_at, id limit 1) where id = ${project.id}`);
    return project;
  });
}

export async function authenticateKey(db: Db, key: string): Promise<AuthenticatedProject | null> {
  const kind = keyKindOf(key);
  if (!kind) return null;
  const hash = hashKey(key);
  const column = kind === 'public' ? projects.publicKeyHash : projects.secretKeyHash;
  const [row] = await db
    .select({ id: projects.id, name: projects.name, disabled: projects.disabled })
    .from(projects)
    .where(eq(column, hash))
    .limit(1);
  return row ? { ...row, keyKind: kind } : null;
}

/** Disables or enables a project; every process stops (or resumes) accepting its keys at once. */
export async function setProjectDisabled(ctx: AppContext, id: string, disabled: boolean): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    await tx.update(projects).set({ disabled, updatedAt: new Date() }).where(eq(projects.id, id));
    await notify(tx, PROJECTS_CHANGED);
  });
  ctx.keys.clear();
}
