import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { FilterCondition } from '../../../../src/domain/filters/schema.js';
import { api } from '../../api/client.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { type FieldIssue, pruneEmpty, treeIssues } from './filter-tree.js';

/** POST /segments/estimate: sampled in a large project (with margins), exact in a small one. */
export interface Estimate {
  estimate: number;
  margin: number;
  subscribed: number;
  subscribedMargin: number;
  exact: boolean;
  contacts: number;
  sampled: number;
}

/** POST /segments/count. */
export interface ExactCount {
  total: number;
  subscribed: number;
  contacts: import('../../../../src/api.js').Contact[];
}

export type LiveCount =
  /** Waiting for the pause in typing, or for the answer. */
  | { status: 'counting'; last: Estimate | null }
  | { status: 'done'; estimate: Estimate }
  /** The tree is not complete yet (a value missing, say): nothing is asked; `issues` say what. */
  | { status: 'incomplete'; issues: FieldIssue[] }
  | { status: 'error'; error: unknown };

export const LIVE_COUNT_DEBOUNCE_MS = 300;

/**
 * The live count of a tree for the current project: after `debounceMs` without a change, the
 * estimate (`POST /segments/estimate`) of the tree without its empty groups; a request still
 * running when the tree changes again is aborted, so an old answer never overwrites a newer one.
 * `countExactly` asks `POST /segments/count` for the exact figures (and `preview` contacts) of the
 * tree as it is now; `exact` is dropped as soon as the tree changes.
 */
export function useLiveCount(
  condition: FilterCondition,
  options: { debounceMs?: number; enabled?: boolean } = {},
): {
  live: LiveCount;
  exact: { data: ExactCount | null; pending: boolean; error: unknown };
  countExactly: (preview?: number) => Promise<ExactCount | null>;
} {
  const { debounceMs = LIVE_COUNT_DEBOUNCE_MS, enabled = true } = options;
  const projectId = useCurrentProject().id;
  // Compared as text: a tree rebuilt with the same content is the same question.
  const rawKey = JSON.stringify(condition);
  const key = JSON.stringify(pruneEmpty(condition));
  // Checked as built (empty groups are valid), so the paths are the builder's; as text too, so an
  // empty group added or removed (the same question) asks nothing again.
  const issuesKey = useMemo(() => JSON.stringify(treeIssues(JSON.parse(rawKey))), [rawKey]);
  const [live, setLive] = useState<LiveCount>({ status: 'counting', last: null });
  const last = useRef<Estimate | null>(null);

  useEffect(() => {
    if (!enabled) return;
    const issues: FieldIssue[] = JSON.parse(issuesKey);
    if (issues.length > 0) {
      setLive({ status: 'incomplete', issues });
      return;
    }
    setLive({ status: 'counting', last: last.current });
    const controller = new AbortController();
    const timer = setTimeout(() => {
      api<Estimate>('POST', '/segments/estimate', {
        projectId,
        body: { condition: JSON.parse(key) },
        signal: controller.signal,
      }).then(
        (estimate) => {
          last.current = estimate;
          setLive({ status: 'done', estimate });
        },
        (error) => {
          if (!controller.signal.aborted) setLive({ status: 'error', error });
        },
      );
    }, debounceMs);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [key, issuesKey, projectId, debounceMs, enabled]);

  const [exact, setExact] = useState<{ key: string; data: ExactCount | null; pending: boolean; error: unknown }>({
    key: '',
    data: null,
    pending: false,
    error: null,
  });
  const latestKey = useRef(key);
  latestKey.current = key;
  const countExactly = useCallback(
    async (preview = 0) => {
      const asked = key;
      setExact({ key: asked, data: null, pending: true, error: null });
      try {
        const data = await api<ExactCount>('POST', '/segments/count', {
          projectId,
          body: { condition: JSON.parse(asked), preview },
        });
        if (latestKey.current === asked) setExact({ key: asked, data, pending: false, error: null });
        return data;
      } catch (error) {
        if (latestKey.current === asked) setExact({ key: asked, data: null, pending: false, error });
        return null;
      }
    },
    [key, projectId],
  );
  const current = exact.key === key ? exact : { data: null, pending: false, error: null };
  return { live, exact: current, countExactly };
}
