/**
 * The rules for a `data` object sent with contacts, /v1/track, /v1/send and workflow updates:
 *  1. patched: keys not sent keep their values      2. primitives are stored
 *  3. null deletes the key                           4. an empty string is ignored
 *  5. `{ value, persistent: false }` is for this send only and never stored
 *  6. reserved keys are dropped silently             9. a key's type is inferred once per project
 */

export const RESERVED_DATA_KEYS: ReadonlySet<string> = new Set([
  'id',
  'svc_id',
  'svc_email',
  'email',
  'unsubscribeUrl',
  'subscribeUrl',
  'manageUrl',
]);

export type FieldType = 'string' | 'number' | 'boolean' | 'date';

export interface DataPatch {
  /** Keys to store, with their values. */
  set: Record<string, unknown>;
  /** Keys to delete from the contact. */
  unset: string[];
  /** Values for this one send, never stored. */
  transient: Record<string, unknown>;
}

export const emptyPatch = (): DataPatch => ({ set: {}, unset: [], transient: {} });

function isTransient(value: unknown): value is { value: unknown; persistent: false } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 2 && 'value' in value && (value as { persistent?: unknown }).persistent === false;
}

export function parseDataPatch(data: Record<string, unknown> | undefined | null): DataPatch {
  const patch = emptyPatch();
  if (!data) return patch;
  for (const [key, value] of Object.entries(data)) {
    if (RESERVED_DATA_KEYS.has(key) || value === undefined || value === '') continue;
    if (value === null) patch.unset.push(key);
    else if (isTransient(value)) patch.transient[key] = value.value;
    else patch.set[key] = value;
  }
  return patch;
}

/** The contact's data after the patch: what the database computes as `(data || set) - unset`. */
export function applyDataPatch(current: Record<string, unknown>, patch: DataPatch): Record<string, unknown> {
  const next = { ...current, ...patch.set };
  for (const key of patch.unset) delete next[key];
  return next;
}

/** What templates see for one send: the stored data overlaid with the transient values. */
export function renderData(stored: Record<string, unknown>, patch: DataPatch): Record<string, unknown> {
  return { ...stored, ...patch.transient };
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d{3})?Z)?$/;

export function isIsoDate(value: string): boolean {
  return ISO_DATE.test(value) && !Number.isNaN(Date.parse(value));
}

export function inferFieldType(value: unknown): FieldType | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string' && isIsoDate(value)) return 'date';
  return 'string';
}

/** Types of the keys a patch stores; the first one seen per project wins. */
export function inferPatchTypes(patch: DataPatch): Record<string, FieldType> {
  const types: Record<string, FieldType> = {};
  for (const [key, value] of Object.entries(patch.set)) {
    const type = inferFieldType(value);
    if (type) types[key] = type;
  }
  return types;
}

/**
 * The top-level keys of sampled data objects (such as an event's recent `data`) that hold scalar
 * values, each with the type most of its values have; keys sorted by name.
 */
export function sampleFieldTypes(samples: readonly Record<string, unknown>[]): { key: string; type: FieldType }[] {
  const tally = new Map<string, Map<FieldType, number>>();
  for (const data of samples)
    for (const [key, value] of Object.entries(data)) {
      // Objects and lists have no operators of their own: only scalar values are offered.
      const type = typeof value === 'object' ? null : inferFieldType(value);
      if (!type) continue;
      const counts = tally.get(key) ?? new Map<FieldType, number>();
      counts.set(type, (counts.get(type) ?? 0) + 1);
      tally.set(key, counts);
    }
  return [...tally]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, counts]) => ({ key, type: [...counts].sort((a, b) => b[1] - a[1])[0]![0] }));
}

/** One patch with the effect of applying `first` and then `second`. */
export function mergeDataPatches(first: DataPatch, second: DataPatch): DataPatch {
  const set = { ...first.set };
  for (const key of second.unset) delete set[key];
  Object.assign(set, second.set);
  const unset = [...new Set([...first.unset.filter((k) => !(k in second.set)), ...second.unset])];
  return { set, unset, transient: { ...first.transient, ...second.transient } };
}
