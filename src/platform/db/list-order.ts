import { type SQL, sql } from 'drizzle-orm';

export type ListSort = 'name' | 'createdAt' | 'updatedAt';

/** A page of a numbered list of named rows of a project, searched and sorted. */
export interface NamedListQuery {
  projectId: string;
  search?: string;
  sort: ListSort;
  dir: 'asc' | 'desc';
  offset: number;
  limit: number;
}

/**
 * `order by` of a numbered list of named rows. Names sort case-insensitively by code point
 * (`collate "C"`), so the order is the same on every database whatever its locale; the id breaks
 * ties so pages never overlap or skip.
 */
export function listOrder(sort: ListSort, direction: 'asc' | 'desc'): SQL {
  const dir = direction === 'asc' ? sql`asc` : sql`desc`;
  const keys =
    sort === 'name'
      ? [sql`lower(name) collate "C" ${dir}`, sql`name collate "C" ${dir}`]
      : [sort === 'updatedAt' ? sql`updated_at ${dir}` : sql`created_at ${dir}`];
  return sql`order by ${sql.join([...keys, sql`id ${dir}`], sql`, `)}`;
}

/** `id = any(…)` over ids a schema checked as uuids (so nothing in them needs quoting). */
export const idIn = (ids: readonly string[]) => sql`id = any(${`{${ids.join(',')}}`}::uuid[])`;
