import type { TemplateFields } from './repo.js';

/** The fields a version keeps, in the order the history names them. */
export const VERSION_FIELDS = [
  'name',
  'description',
  'subject',
  'body',
  'bodySource',
  'from',
  'fromName',
  'replyTo',
  'type',
  'trackOpens',
  'trackClicks',
] as const satisfies readonly (keyof TemplateFields)[];
export type VersionField = (typeof VERSION_FIELDS)[number];

/** How a version came to be: the template made, saved with changes, or an older version brought back. */
export const VERSION_EVENTS = ['created', 'edited', 'restored'] as const;
export type VersionEvent = (typeof VERSION_EVENTS)[number];

/** Who saved a version: a signed-in user, or a caller with the project's secret API key. */
export type Author = { kind: 'user'; userId: string } | { kind: 'api_key' };

/** The author of a request: its signed-in user, else its API key. */
export const authorOf = (project: { userId: string | null }): Author =>
  project.userId ? { kind: 'user', userId: project.userId } : { kind: 'api_key' };

/** Key order does not matter in a block document, so two with the same content compare equal. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

const same = (a: unknown, b: unknown) =>
  a === b || JSON.stringify(canonical(a ?? null)) === JSON.stringify(canonical(b ?? null));

/** The fields whose value `change` sets to something else than `current` has (undefined: left alone). */
export function changedFields(current: TemplateFields, change: Partial<TemplateFields>): VersionField[] {
  return VERSION_FIELDS.filter((f) => change[f] !== undefined && !same(current[f], change[f]));
}
