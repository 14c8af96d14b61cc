import type { FieldType } from '../../domain/contact-data.js';
import type { Executor } from '../../platform/db/client.js';
import { typedKeys } from './repo.js';

/**
 * The `data` keys each project has already typed. A key's type is fixed at first sight and never
 * removed, so this knowledge never goes stale: writes of known keys skip the type insert entirely.
 * It is filled from the database, so it holds only committed types.
 */
class KnownFieldTypes {
  private known = new Map<string, Set<string>>();

  /** The entries of `types` whose keys the project has not typed yet. */
  async untyped(ex: Executor, projectId: string, types: Record<string, FieldType>): Promise<Record<string, FieldType>> {
    const keys = Object.keys(types);
    if (keys.length === 0) return types;
    let known = this.known.get(projectId);
    if (!known || keys.some((k) => !known!.has(k))) {
      known = new Set(await typedKeys(ex, projectId));
      this.known.set(projectId, known);
    }
    return Object.fromEntries(Object.entries(types).filter(([key]) => !known!.has(key)));
  }
}

export const knownFieldTypes = new KnownFieldTypes();
