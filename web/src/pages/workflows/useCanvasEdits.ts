import { useState } from 'react';
import type { Branch, StepType, WorkflowDetail, WorkflowTransition } from '../../../../src/api.js';
import { stepTypeSpec } from '../../../../src/domain/workflows/step-types.js';
import { type GraphSnapshot, HISTORY_LIMIT, type HistoryEntry, renamed, restore, snapshotOf } from './graph-history.js';
import type { Placement, Slot } from './graph-model.js';
import { slotTransition } from './graph-model.js';
import type { WorkflowCalls } from './workflows-api.js';

export interface NewStep {
  type: StepType;
  name: string | null;
  config: Record<string, unknown>;
}

/** The branch a new step continues by toward the step it was inserted before. */
function onwardBranch(type: StepType): Branch | null {
  const spec = stepTypeSpec(type);
  return spec.branches.length === 0 || spec.branchOptional ? null : spec.branches[0]!;
}

/**
 * The canvas's edits as API calls, each remembered for undo and redo. Every edit reads the graph
 * after it from the server, so what the canvas shows is always what the server stored.
 */
export function useCanvasEdits(calls: WorkflowCalls, workflow: WorkflowDetail) {
  const [undo, setUndo] = useState<HistoryEntry[]>([]);
  const [redo, setRedo] = useState<HistoryEntry[]>([]);
  const [busy, setBusy] = useState(false);

  /** Runs `change`, remembers the graph before and after it; answers what `change` answered. */
  async function edit<T>(label: string, change: () => Promise<T>): Promise<T> {
    setBusy(true);
    const before = snapshotOf(workflow);
    try {
      const result = await change();
      const after = snapshotOf(await calls.read());
      setUndo((u) => [...u.slice(-(HISTORY_LIMIT - 1)), { label, before, after }]);
      setRedo([]);
      return result;
    } finally {
      setBusy(false);
      await calls.refresh();
    }
  }

  /** Brings the graph to `target`; every remembered graph learns the ids of the steps brought back. */
  async function travel(target: GraphSnapshot): Promise<(s: GraphSnapshot) => GraphSnapshot> {
    const ids = await restore(calls, await calls.read(), target);
    const rename = (s: GraphSnapshot) => renamed(s, ids);
    const mapEntries = (list: HistoryEntry[]) =>
      list.map((e) => ({ ...e, before: rename(e.before), after: rename(e.after) }));
    setUndo(mapEntries);
    setRedo(mapEntries);
    return rename;
  }

  async function step(from: 'undo' | 'redo') {
    const stack = from === 'undo' ? undo : redo;
    const entry = stack[stack.length - 1];
    if (!entry) return;
    setBusy(true);
    try {
      const rename = await travel(from === 'undo' ? entry.before : entry.after);
      const moved = { ...entry, before: rename(entry.before), after: rename(entry.after) };
      if (from === 'undo') {
        setUndo((u) => u.slice(0, -1));
        setRedo((r) => [...r, moved]);
      } else {
        setRedo((r) => r.slice(0, -1));
        setUndo((u) => [...u, moved]);
      }
    } finally {
      setBusy(false);
      await calls.refresh();
    }
  }

  const { transitions } = workflow;
  return {
    busy,
    canUndo: undo.length > 0 && !busy,
    canRedo: redo.length > 0 && !busy,
    undoLabel: undo[undo.length - 1]?.label,
    redoLabel: redo[redo.length - 1]?.label,
    undo: () => step('undo'),
    redo: () => step('redo'),

    /** Adds a step at an open end, or inserts it on a transition (or between the trigger and the first step). */
    add: (placement: Placement, s: NewStep) =>
      edit(`add ${s.type}`, async () => {
        const made = await calls.addStep(s);
        if (placement.kind === 'end') {
          if (placement.slot) await calls.addTransition(placement.slot.stepId, made.id, placement.slot.branch);
        } else {
          const t = placement.transition;
          if (t) {
            await calls.deleteTransition(t.id);
            await calls.addTransition(t.fromStepId, made.id, t.branch);
          }
          await calls.addTransition(made.id, placement.to, onwardBranch(s.type));
        }
        return made;
      }),

    update: (stepId: string, s: { name: string | null; config: Record<string, unknown> }) =>
      edit('change step', () => calls.patchStep(stepId, s)),

    remove: (stepId: string, splice: boolean) => edit('delete step', () => calls.deleteStep(stepId, splice)),

    /** Points a way out of a step at another step (or at nothing: the path ends there). */
    connect: (slot: Slot, to: string | null) =>
      edit('reconnect', async () => {
        const current = slotTransition(transitions, slot);
        if (current) await calls.deleteTransition(current.id);
        if (to) await calls.addTransition(slot.stepId, to, slot.branch);
      }),

    /** Moves a transition's end to another step. */
    retarget: (t: WorkflowTransition, to: string) =>
      edit('reconnect', async () => {
        await calls.deleteTransition(t.id);
        await calls.addTransition(t.fromStepId, to, t.branch);
      }),
  };
}

export type CanvasEdits = ReturnType<typeof useCanvasEdits>;
