import type { ExecutionDetail, HistoryEntry, StepStats, WorkflowDetail, WorkflowStep } from '../../../../src/api.js';
import type { Duration } from '../../../../src/domain/workflows/step-types.js';
import { BRANCH_LABELS, TRIGGER_ID } from './graph-model.js';

/** What the canvas shows on a step besides its config: counts, the followed contact's visits, faults. */
export interface StepView {
  summary: string;
  active: number;
  mail: { sent: number; opened: number; clicked: number } | null;
  /** The followed contact's visits of this step, oldest first, and whether it waits here now. */
  visits: { at: string; outcome: string }[];
  current: boolean;
  faults: string[];
}

const duration = (d: Duration | undefined) =>
  d ? `${d.amount} ${d.amount === 1 ? d.unit.replace(/s$/, '') : d.unit}` : '';

/** A DELAY waits for a duration, or until a time of day in the contact's time zone. */
export type DelayKind = 'duration' | 'time';

export const DELAY_KIND_LABELS: Record<DelayKind, string> = {
  duration: 'Wait for a duration',
  time: 'Wait until a time of day in the contact’s time zone',
};

export const delayKindOf = (config: Record<string, unknown>): DelayKind => ('until' in config ? 'time' : 'duration');

/** What a DELAY starts with when its kind is chosen: a day, or 09:00. */
export const delayConfigOf = (kind: DelayKind): Record<string, unknown> =>
  kind === 'time' ? { until: { time: '09:00' } } : { amount: 1, unit: 'days' };

/**
 * The field errors of a DELAY's form, by input: the server names `config.until.time`,
 * `config.amount` or `config.unit`, or `config` for a config that is neither kind.
 */
export function delayErrors(errors: Record<string, string>): { time?: string; duration?: string; whole?: string } {
  return {
    time: errors['config.until.time'] ?? errors['config.until'],
    duration: errors['config.amount'] ?? errors['config.unit'],
    whole: errors.config,
  };
}

/** One line saying what a step does, from its config. */
export function stepSummary(step: WorkflowStep, templateNames: Map<string, string>): string {
  // biome-ignore lint/suspicious/noExplicitAny: the server checked the config against its type's schema
  const c = step.config as Record<string, any>;
  switch (step.type) {
    case 'SEND_EMAIL':
      return templateNames.get(c.templateId) ?? 'A template';
    case 'DELAY':
      return delayKindOf(c) === 'time'
        ? `Until ${c.until.time}, contact’s local time`
        : `Wait ${duration(c as Duration)}`;
    case 'WAIT_FOR_EVENT':
      return `Until “${c.event}”, at most ${duration(c.timeout)}`;
    case 'CONDITION': {
      const filters = (c.condition?.groups ?? []).flatMap((g: { filters: unknown[] }) => g.filters);
      const f = filters[0] as { field: string; operator: string; value?: unknown } | undefined;
      if (!f) return 'Everyone';
      const first = `${f.field} ${f.operator}${f.value !== undefined ? ` ${String(f.value)}` : ''}`;
      return filters.length > 1 ? `${first} and ${filters.length - 1} more` : first;
    }
    case 'WEBHOOK': {
      let host = String(c.url);
      try {
        host = new URL(c.url).host;
      } catch {}
      return `${c.method ?? 'POST'} ${host}`;
    }
    case 'UPDATE_CONTACT': {
      const keys = Object.keys(c.data ?? {});
      const parts = [
        keys.length ? `Sets ${keys.join(', ')}` : '',
        c.subscribed === undefined ? '' : c.subscribed ? 'subscribes' : 'unsubscribes',
      ];
      return parts.filter(Boolean).join(', ');
    }
    case 'EXIT':
      return 'Ends here';
  }
}

/** How a visit of a step ended, in words. */
export function outcomeOf(h: HistoryEntry): string {
  if (h.status === 'failed') return `Failed${h.error ? `: ${h.error}` : ''}`;
  if (h.branch) return BRANCH_LABELS[h.branch];
  if (h.type === 'SEND_EMAIL') {
    const status = h.output?.status;
    return status === 'skipped' ? 'Skipped' : 'Email made';
  }
  if (h.type === 'EXIT') return 'Exited';
  return 'Done';
}

export function stepViews(
  workflow: WorkflowDetail,
  stats: StepStats | undefined,
  path: ExecutionDetail | undefined,
  faults: Map<string, string[]>,
  templateNames: Map<string, string>,
): Map<string, StepView> {
  const statOf = new Map((stats?.steps ?? []).map((s) => [s.stepId, s]));
  const views = new Map<string, StepView>();
  for (const step of workflow.steps) {
    const s = statOf.get(step.id);
    views.set(step.id, {
      summary: stepSummary(step, templateNames),
      active: s?.active ?? 0,
      mail: s && s.sent !== null ? { sent: s.sent, opened: s.opened ?? 0, clicked: s.clicked ?? 0 } : null,
      visits: (path?.steps ?? [])
        .filter((h) => h.stepId === step.id)
        .map((h) => ({ at: h.finishedAt, outcome: outcomeOf(h) })),
      current: !!path && ['running', 'waiting'].includes(path.status) && path.currentStepId === step.id,
      faults: faults.get(step.id) ?? [],
    });
  }
  return views;
}

/** The canvas edges the execution went along: from the trigger to its first step, then step to step. */
export function pathEdgeIds(workflow: WorkflowDetail, path: ExecutionDetail | undefined): Set<string> {
  const ids = new Set<string>();
  if (!path) return ids;
  const visited = [...path.steps.map((h) => ({ stepId: h.stepId, branch: h.branch }))];
  const first = visited[0]?.stepId ?? path.currentStepId;
  if (first) ids.add(`${TRIGGER_ID}:${first}`);
  const next = (i: number) => visited[i + 1]?.stepId ?? (i === visited.length - 1 ? path.currentStepId : null);
  visited.forEach((h, i) => {
    const to = next(i);
    const t = workflow.transitions.find(
      (x) => x.fromStepId === h.stepId && x.toStepId === to && (x.branch === h.branch || x.branch === null),
    );
    if (t) ids.add(t.id);
  });
  return ids;
}
