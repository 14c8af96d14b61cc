/**
 * The rules of a workflow's graph, as pure functions over its steps and transitions: what a new
 * transition must respect, what enabling requires, where an execution goes next, and how deleting
 * a step with `splice` reconnects its neighbours.
 */
import { type Branch, PAUSING_STEP_TYPES, type StepType, stepTypeSpec } from './step-types.js';

export interface GraphStep {
  id: string;
  type: StepType;
}

export interface GraphTransition {
  id: string;
  from: string;
  to: string;
  /** One of its step type's branches, or null: see `StepTypeSpec.branches`. */
  branch: Branch | null;
}

export interface GraphFault {
  code: string;
  message: string;
  stepIds?: string[];
}

/** Why a transition cannot be added (field and code for a 422, or `exists` for a 409), or null. */
export function transitionFault(
  steps: GraphStep[],
  transitions: GraphTransition[],
  t: Omit<GraphTransition, 'id'>,
): { field: string; code: string; message: string } | null {
  const from = steps.find((s) => s.id === t.from);
  const to = steps.find((s) => s.id === t.to);
  if (!from) return { field: 'fromStepId', code: 'unknown_step', message: 'No step of this workflow has this id' };
  if (!to) return { field: 'toStepId', code: 'unknown_step', message: 'No step of this workflow has this id' };
  if (from.id === to.id) return { field: 'toStepId', code: 'self_loop', message: 'A step cannot lead to itself' };
  const spec = stepTypeSpec(from.type);
  if (spec.ends)
    return {
      field: 'fromStepId',
      code: 'exit_step',
      message: `A ${from.type} step ends the execution; nothing follows it`,
    };
  const { branches } = spec;
  if (branches.length === 0 && t.branch !== null) {
    return { field: 'branch', code: 'branch_not_allowed', message: `A ${from.type} step has one way out; omit branch` };
  }
  const branchMissing = t.branch === null && !spec.branchOptional;
  if (branches.length > 0 && (branchMissing || (t.branch !== null && !branches.includes(t.branch)))) {
    return {
      field: 'branch',
      code: 'invalid_branch',
      message: `A ${from.type} step needs branch ${branches.map((b) => `"${b}"`).join(' or ')}`,
    };
  }
  // A transition without a branch covers every branch, so it cannot share its step with a branched one.
  const out = transitions.filter((x) => x.from === t.from);
  if (out.some((x) => x.branch === t.branch || (branches.length > 0 && (x.branch === null || t.branch === null)))) {
    return { field: 'fromStepId', code: 'exists', message: 'This step already has a transition for this branch' };
  }
  return null;
}

/** The steps nothing leads to. */
function entries(steps: GraphStep[], transitions: GraphTransition[]): GraphStep[] {
  const targets = new Set(transitions.map((t) => t.to));
  return steps.filter((s) => !targets.has(s.id));
}

/** The step an execution starts at: the one step nothing leads to, or null when there is not exactly one. */
export function entryStep(steps: GraphStep[], transitions: GraphTransition[]): string | null {
  const found = entries(steps, transitions);
  return found.length === 1 ? found[0]!.id : null;
}

/**
 * Where an execution goes after `from` took `branch` (null for steps with one way out), or through
 * the step's transition without a branch; null ends it.
 */
export function nextStep(transitions: GraphTransition[], from: string, branch: Branch | null): string | null {
  const out = transitions.filter((t) => t.from === from);
  return (out.find((t) => t.branch === branch) ?? out.find((t) => t.branch === null))?.to ?? null;
}

/**
 * What enabling a workflow requires: steps, exactly one entry, every branch its step types require
 * (both of a CONDITION), every step reachable from the entry, and a pausing step (DELAY,
 * WAIT_FOR_EVENT) on every loop: a loop without one would spin as fast as the engine runs. An
 * empty list means the graph can run.
 */
export function graphFaults(steps: GraphStep[], transitions: GraphTransition[]): GraphFault[] {
  if (steps.length === 0) return [{ code: 'no_steps', message: 'The workflow has no steps' }];
  const faults: GraphFault[] = [];
  const starts = entries(steps, transitions);
  if (starts.length !== 1) {
    faults.push({
      code: 'entry',
      message:
        starts.length === 0
          ? 'Every step has a step leading to it, so there is no first step'
          : `${starts.length} steps have nothing leading to them; exactly one must be first`,
      stepIds: starts.map((s) => s.id),
    });
  }
  for (const s of steps) {
    const spec = stepTypeSpec(s.type);
    if (spec.branchOptional) continue;
    const missing = spec.branches.filter((b) => !transitions.some((t) => t.from === s.id && t.branch === b));
    if (missing.length > 0) {
      faults.push({
        code: 'missing_branch',
        message: `A ${s.type} step has no "${missing.join('" and "')}" branch`,
        stepIds: [s.id],
      });
    }
  }
  if (starts.length === 1) {
    const reached = reachable(starts[0]!.id, transitions);
    const unreachable = steps.filter((s) => !reached.has(s.id)).map((s) => s.id);
    if (unreachable.length > 0)
      faults.push({
        code: 'unreachable',
        message: 'Some steps cannot be reached from the first step',
        stepIds: unreachable,
      });
  }
  const byId = new Map(steps.map((s) => [s.id, s]));
  for (const loop of loops(steps, transitions)) {
    if (!loop.some((id) => PAUSING_STEP_TYPES.includes(byId.get(id)!.type))) {
      faults.push({
        code: 'loop_without_delay',
        message: `A loop of steps has no ${PAUSING_STEP_TYPES.join(' or ')}`,
        stepIds: loop,
      });
    }
  }
  return faults;
}

function reachable(start: string, transitions: GraphTransition[]): Set<string> {
  const seen = new Set([start]);
  const pending = [start];
  while (pending.length > 0) {
    const id = pending.pop()!;
    for (const t of transitions) {
      if (t.from === id && !seen.has(t.to)) {
        seen.add(t.to);
        pending.push(t.to);
      }
    }
  }
  return seen;
}

/** The strongly connected components with more than one step (Tarjan's algorithm, without recursion). */
function loops(steps: GraphStep[], transitions: GraphTransition[]): string[][] {
  const out = new Map<string, string[]>(steps.map((s) => [s.id, []]));
  for (const t of transitions) out.get(t.from)?.push(t.to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let next = 0;
  for (const root of steps.map((s) => s.id)) {
    if (index.has(root)) continue;
    const work: { id: string; edge: number }[] = [{ id: root, edge: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const targets = out.get(frame.id)!;
      if (frame.edge < targets.length) {
        const to = targets[frame.edge++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ id: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.id, Math.min(low.get(frame.id)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.id, Math.min(low.get(parent.id)!, low.get(frame.id)!));
      if (low.get(frame.id) === index.get(frame.id)) {
        const component: string[] = [];
        let id: string;
        do {
          id = stack.pop()!;
          onStack.delete(id);
          component.push(id);
        } while (id !== frame.id);
        if (component.length > 1) found.push(component);
      }
    }
  }
  return found;
}

/**
 * Deleting `stepId` with splice: every transition into it is pointed at the step it led to, keeping
 * its branch (one that would then lead a step to itself is dropped); a step with no way out just
 * loses its incoming transitions. A step with two ways out cannot be spliced: which one would its
 * predecessors follow?
 */
export function spliceChanges(
  transitions: GraphTransition[],
  stepId: string,
): { retarget: { id: string; to: string }[]; remove: string[] } | { error: string } {
  const outgoing = transitions.filter((t) => t.from === stepId);
  if (outgoing.length > 1)
    return { error: 'The step has two ways out; delete it without splice, or remove one of its transitions first' };
  const successor = outgoing[0]?.to;
  const retarget: { id: string; to: string }[] = [];
  const remove: string[] = [];
  for (const t of transitions.filter((t) => t.to === stepId)) {
    if (successor && successor !== t.from) retarget.push({ id: t.id, to: successor });
    else remove.push(t.id);
  }
  return { retarget, remove };
}
