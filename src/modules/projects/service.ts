import { sql } from 'drizzle-orm';
import { generateKey, hashKey, KEYS_CHANGED, keyKindOf, type Scope } from '../../domain/api-keys.js';
import type { AppContext } from '../../platform/context.js';
import { type Db, type Executor, run } from '../../platform/db/client.js';
import type { KeyOwner, KeyResolver } from '../../platform/http/auth.js';
import type { NotifiedCaches } from '../../platform/notified-cache.js';
import * as apiKeys from '../api-keys/service.js';
import * as members from '../members/service.js';
import * as repo from './repo.js';

export {
  eventRetentions,
  type ProjectRow,
  projectById,
  projectsByIdOrName,
  projectsByIds,
  projectsRequiringTwoFactor,
  projectTimeZone,
  projectTimeZones,
  updateProject,
} from './repo.js';

export interface ProjectWithKeys {
  id: string;
  name: string;
  publicKey: string;
  secretKey: string;
}

export type AuthenticatedProject = KeyOwner;

/** A new project with two fresh keys, shown only now: only their hashes are stored. The owner is its first member. */
export async function createProject(
  ex: Executor,
  name: string,
  ownerId: string | null = null,
  now = new Date(),
): Promise<ProjectWithKeys> {
  const publicKey = generateKey('public');
  const secretKey = generateKey('secret');
  const row = await repo.insertProject(ex, {
    name,
    publicKeyHash: hashKey(publicKey),
    secretKeyHash: hashKey(secretKey),
    ownerId,
  });
  if (ownerId) await members.addOwner(ex, [row.id], ownerId, now);
  return { id: row.id, name: row.name, publicKey, secretKey };
}

/**
 * `userId` (or, when null, the first user) becomes the owner of every project that never had one:
 * the default project of a new instance goes to its first account.
 */
export async function claimOwnerless(ex: Executor, userId: string | null, now: Date): Promise<void> {
  for (const row of await repo.claimOwnerless(ex, userId)) await members.addOwner(ex, [row.id], row.owner_id, now);
}

/** Creates the default project when the database has none; returns it only then. */
export async function ensureDefaultProject(db: Db, now = new Date()): Promise<ProjectWithKeys | null> {
  return db.transaction(async (tx) => {
    // Two processes starting on one empty database must not both create a project.
    await run(tx, sql`select pg_advisory_xact_lock(727002)`);
    if (await repo.anyProjectExists(tx)) return null;
    const project = await createProject(tx, 'Default project');
    // A user made before the first start (`user:create`) owns it, as they would have claimed it.
    await claimOwnerless(tx, null, now);
    return project;
  });
}

export async function authenticateKey(db: Db, key: string): Promise<AuthenticatedProject | null> {
  const kind = keyKindOf(key);
  if (!kind) return null;
  if (kind === 'scoped') {
    const match = await apiKeys.keyByHash(db, hashKey(key));
    const row = match && (await repo.projectById(db, match.project_id));
    if (!match || !row) return null;
    const validUntil = match.valid_until === null ? null : new Date(match.valid_until);
    const scoped = { id: match.id, scopes: match.scopes as Scope[], validUntil };
    return { id: row.id, name: row.name, disabled: row.disabled, keyKind: 'secret', scoped };
  }
  const row = await repo.projectByKeyHash(db, kind, hashKey(key));
  return row ? { id: row.id, name: row.name, disabled: row.disabled, keyKind: kind } : null;
}

/** Disables or enables a project; every process stops (or resumes) accepting its keys at once. */
export async function setProjectDisabled(ctx: AppContext, id: string, disabled: boolean): Promise<void> {
  await ctx.db.transaction((tx) => repo.setDisabled(tx, id, disabled, ctx.clock.now()));
  ctx.keys.clear();
}

/**
 * Remembers which project a key belongs to, so a request costs no lookup. Unknown keys are not
 * remembered: a flood of random keys must not evict real ones.
 */
export function keyResolver(db: Db, caches: NotifiedCaches, now: () => Date = () => new Date()): KeyResolver {
  const cache = caches.of<AuthenticatedProject | null>(KEYS_CHANGED);
  return {
    used: apiKeys.keyUsage(db, now),
    resolve: (key) =>
      cache.get(
        hashKey(key),
        () => authenticateKey(db, key),
        (project) => project !== null,
      ),
    clear: () => cache.evict(),
  };
}
