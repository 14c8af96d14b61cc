/**
 * Undo and redo of the canvas's edits. Each edit is remembered as the graph before and after it;
 * undoing brings the server's graph back to "before" through the ordinary API (steps created,
 * patched and deleted, transitions added and removed). A step brought back gets a new id, so every
 * remembered graph is renamed to the new ids as they appear.
 */
import type { Branch, StepType, WorkflowDetail } from '../../../../src/api.js';
import type { WorkflowCalls } from './workflows-api.js';

export interface GraphSnapshot {
  steps: {
    id: string;
    type: StepType;
    name: string | null;
    config: Record<string, unknown>;
    position: { x: number; y: number } | null;
  }[];
  transitions: { from: string; to: string; branch: Branch | null }[];
}

export interface HistoryEntry {
  label: string;
  before: GraphSnapshot;
  after: GraphSnapshot;
}

/** How many edits can be undone. */
export const HISTORY_LIMIT = 20;

export function snapshotOf(w: Pick<WorkflowDetail, 'steps' | 'transitions'>): GraphSnapshot {
  return {
    steps: w.steps.map(({ id, type, name, config, position }) => ({ id, type, name, config, position })),
    transitions: w.transitions.map((t) => ({ from: t.fromStepId, to: t.toStepId, branch: t.branch })),
  };
}

const transitionKey = (t: GraphSnapshot['transitions'][number]) => `${t.from}>${t.to}>${t.branch ?? ''}`;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function renamed(s: GraphSnapshot, ids: Map<string, string>): GraphSnapshot {
  const id = (x: string) => ids.get(x) ?? x;
  return {
    steps: s.steps.map((step) => ({ ...step, id: id(step.id) })),
    transitions: s.transitions.map((t) => ({ ...t, from: id(t.from), to: id(t.to) })),
  };
}

/**
 * Changes the workflow from `current` (as the server has it, with its transitions' ids) to
 * `target`; answers the new ids of the steps it had to create, by their old ids.
 */
export async function restore(
  calls: WorkflowCalls,
  current: WorkflowDetail,
  target: GraphSnapshot,
): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const targetIds = new Set(target.steps.map((s) => s.id));
  const currentSteps = new Map(current.steps.map((s) => [s.id, s]));
  const wanted = new Set(target.transitions.map(transitionKey));
  // Transitions first, so a slot is free before another transition takes it.
  for (const t of current.transitions) {
    if (!wanted.has(transitionKey({ from: t.fromStepId, to: t.toStepId, branch: t.branch })))
      await calls.deleteTransition(t.id);
  }
  for (const step of target.steps) {
    const now = currentSteps.get(step.id);
    if (!now) {
      const made = await calls.addStep({
        type: step.type,
        name: step.name,
        config: step.config,
        position: step.position,
      });
      ids.set(step.id, made.id);
    } else if (!same(now.config, step.config) || now.name !== step.name) {
      await calls.patchStep(step.id, { name: step.name, config: step.config });
    }
  }
  const have = new Set(
    current.transitions.map((t) => transitionKey({ from: t.fromStepId, to: t.toStepId, branch: t.branch })),
  );
  for (const t of renamed(target, ids).transitions) {
    if (!have.has(transitionKey(t))) await calls.addTransition(t.from, t.to, t.branch);
  }
  for (const step of current.steps) if (!targetIds.has(step.id)) await calls.deleteStep(step.id, false);
  return ids;
}
