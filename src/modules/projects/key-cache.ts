import type { Database } from '../../platform/db/client.js';
import { hashKey } from '../../domain/api-keys.js';
import { authenticateKey, type AuthenticatedProject } from './service.js';

export const PROJECTS_CHANGED = 'projects_changed';
const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

/**
 * Remembers which project a key belongs to, so a request costs no lookup. Any change to a project's
 * keys or state is announced with NOTIFY and empties the cache of every process at once; the TTL
 * only bounds how long a missed notification could matter.
 */
export class ProjectKeyCache {
  private entries = new Map<string, { project: AuthenticatedProject; at: number }>();
  /** Bumped by every change: a lookup that started before one may be stale, so it is not kept. */
  private generation = 0;

  constructor(private readonly database: Database) {}

  async start(): Promise<void> {
    await this.database.listen(PROJECTS_CHANGED, () => this.clear());
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  async resolve(key: string): Promise<AuthenticatedProject | null> {
    const hash = hashKey(key);
    // Without notifications a disabled project would go unseen: read through until they flow again.
    const trusted = this.database.notificationsLive();
    const hit = this.entries.get(hash);
    if (trusted && hit && Date.now() - hit.at < TTL_MS) return hit.project;
    const lookedUpIn = this.generation;
    const project = await authenticateKey(this.database.db, key);
    // Unknown keys are not remembered: a flood of random keys must not evict real ones.
    if (project && trusted && lookedUpIn === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(hash, { project, at: Date.now() });
    }
    return project;
  }
}
