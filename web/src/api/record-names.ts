import { useQueries } from '@tanstack/react-query';
import { api } from './client.js';

/**
 * Ids in event data and on records name things the dashboard has a page for; a page shows them
 * as links with the thing's name (a contact's address, an email's subject). The look-ups are
 * batched so that a page of 50 events asks a handful of questions, not 50:
 * - emails and campaigns: one `GET /emails?ids=` / `GET /campaigns?ids=` per page of 100 ids;
 * - segments and workflows: their whole lists (`GET /segments`, `GET /workflows`), once;
 * - templates and contacts: one `GET /templates/{id}` / `GET /contacts/{id}` per distinct id
 *   (a page rarely mentions more than a few: an event's own contact is named already).
 * Every answer is cached by TanStack Query, so the next page asks only for what it has not seen.
 */

export const RECORD_KINDS = ['email', 'campaign', 'contact', 'template', 'workflow', 'segment'] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];
export interface RecordRef {
  kind: RecordKind;
  id: string;
}

/** The key of event data that holds each kind's id (`emailId`, `campaignId`, …). */
export const REFERENCE_KEYS: Record<string, RecordKind> = Object.fromEntries(
  RECORD_KINDS.map((kind) => [`${kind}Id`, kind]),
);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The thing a data entry refers to, when its key is a known reference and its value an id. */
export function referenceOf(key: string, value: unknown): RecordRef | null {
  const kind = REFERENCE_KEYS[key];
  return kind && typeof value === 'string' && UUID.test(value) ? { kind, id: value.toLowerCase() } : null;
}

export function referencesIn(data: readonly Record<string, unknown>[]): RecordRef[] {
  const seen = new Map<string, RecordRef>();
  for (const d of data) {
    for (const [key, value] of Object.entries(d)) {
      const ref = referenceOf(key, value);
      if (ref) seen.set(`${ref.kind} ${ref.id}`, ref);
    }
  }
  return [...seen.values()];
}

export const recordPath = (ref: RecordRef) => `/${ref.kind}s/${encodeURIComponent(ref.id)}`;

/** What the link says while the name is unknown (still loading, or the thing is gone). */
export const shortId = (id: string) => `${id.slice(0, 8)}…`;

type Names = Record<string, string>;
interface NamesQuery {
  queryKey: readonly unknown[];
  queryFn: (context: { signal: AbortSignal }) => Promise<Names>;
}
const BATCH = 100;
const STALE_MS = 5 * 60_000;

const chunks = (ids: string[]) =>
  Array.from({ length: Math.ceil(ids.length / BATCH) }, (_, i) => ids.slice(i * BATCH, (i + 1) * BATCH));

/** The names of the things `refs` point at, as far as they are known yet: `name(ref)`. */
export function useRecordNames(projectId: string, refs: readonly RecordRef[]) {
  const idsOf = (kind: RecordKind) => [...new Set(refs.filter((r) => r.kind === kind).map((r) => r.id))].sort();
  const batched = (kind: 'email' | 'campaign', path: string, label: (row: never) => string): NamesQuery[] =>
    chunks(idsOf(kind)).map((ids) => ({
      queryKey: ['names', projectId, kind, ids],
      queryFn: async ({ signal }: { signal: AbortSignal }) => {
        const page = await api<{ data: ({ id: string } & Record<string, unknown>)[] }>('GET', path, {
          projectId,
          signal,
          query: { ids: ids.join(','), limit: BATCH, pageSize: BATCH },
        });
        return Object.fromEntries(page.data.map((row) => [row.id, label(row as never)])) as Names;
      },
    }));
  const listed = (kind: 'segment' | 'workflow'): NamesQuery[] =>
    idsOf(kind).length === 0
      ? []
      : [
          {
            queryKey: ['names', projectId, kind],
            queryFn: async ({ signal }: { signal: AbortSignal }) => {
              const rows = await api<{ id: string; name: string }[]>('GET', `/${kind}s`, { projectId, signal });
              return Object.fromEntries(rows.map((row) => [row.id, row.name])) as Names;
            },
          },
        ];
  const single = (kind: 'template' | 'contact', label: (row: never) => string): NamesQuery[] =>
    idsOf(kind).map((id) => ({
      queryKey: ['names', projectId, kind, id],
      queryFn: async ({ signal }: { signal: AbortSignal }) => {
        const row = await api<Record<string, unknown>>('GET', recordPath({ kind, id }), { projectId, signal });
        return { [id]: label(row as never) } as Names;
      },
    }));

  const groups: [RecordKind, NamesQuery[]][] = [
    ['email', batched('email', '/emails', (e: { subject: string }) => e.subject)],
    ['campaign', batched('campaign', '/campaigns', (c: { name: string }) => c.name)],
    ['segment', listed('segment')],
    ['workflow', listed('workflow')],
    ['template', single('template', (t: { name: string }) => t.name)],
    ['contact', single('contact', (c: { email: string }) => c.email)],
  ];
  const results = useQueries({
    queries: groups.flatMap(([, queries]) => queries.map((q) => ({ ...q, staleTime: STALE_MS, retry: false }))),
  });
  const known: Record<RecordKind, Names> = {
    email: {},
    campaign: {},
    contact: {},
    template: {},
    workflow: {},
    segment: {},
  };
  let i = 0;
  for (const [kind, queries] of groups) {
    for (const _ of queries) Object.assign(known[kind], results[i++]?.data);
  }
  return (ref: RecordRef): string | undefined => known[ref.kind][ref.id];
}
