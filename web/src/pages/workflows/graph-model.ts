/**
 * The canvas's picture of a workflow: its steps, the trigger above them, and the open ends where a
 * step can be added (a "+" after a step with one way out, a dashed "end" on an empty branch), laid
 * out by dagre top to bottom. What leaves a step is read from the step-type registry, never repeated.
 */
import { graphlib, layout } from '@dagrejs/dagre';
import type { Branch, StepType, WorkflowDetail, WorkflowStep, WorkflowTransition } from '../../../../src/api.js';
import { entryStep } from '../../../../src/domain/workflows/graph-rules.js';
import { stepTypeSpec } from '../../../../src/domain/workflows/step-types.js';

export const TRIGGER_ID = 'trigger';

/** A way out of a step: one of its branches, or `null` for a step with one way out. */
export interface Slot {
  stepId: string;
  branch: Branch | null;
}

/** The ways out of a step of this type: none for EXIT, its branches, or one without a branch. */
export function slotsOf(step: Pick<WorkflowStep, 'id' | 'type'>, transitions: WorkflowTransition[]): Slot[] {
  const spec = stepTypeSpec(step.type);
  if (spec.ends) return [];
  if (spec.branches.length === 0) return [{ stepId: step.id, branch: null }];
  // A transition without a branch covers every branch of a step whose branches are optional.
  if (spec.branchOptional && transitions.some((t) => t.fromStepId === step.id && t.branch === null))
    return [{ stepId: step.id, branch: null }];
  return spec.branches.map((branch) => ({ stepId: step.id, branch }));
}

export const slotTransition = (transitions: WorkflowTransition[], slot: Slot) =>
  transitions.find((t) => t.fromStepId === slot.stepId && t.branch === slot.branch);

export const BRANCH_LABELS: Record<Branch, string> = {
  yes: 'Yes',
  no: 'No',
  arrived: 'Arrived',
  timeout: 'Timed out',
};

export const STEP_LABELS: Record<StepType, string> = {
  SEND_EMAIL: 'Send email',
  DELAY: 'Delay',
  WAIT_FOR_EVENT: 'Wait for event',
  CONDITION: 'Condition',
  WEBHOOK: 'Webhook',
  UPDATE_CONTACT: 'Update contact',
  EXIT: 'Exit',
};

export const stepTitle = (step: Pick<WorkflowStep, 'type' | 'name'>) => step.name || STEP_LABELS[step.type];

/** Where a new step goes: after a way out of a step (or the trigger, `stepId` null), or on a transition. */
export type Placement =
  | { kind: 'end'; slot: Slot | null }
  | { kind: 'edge'; transition: WorkflowTransition | null; to: string };

export type CanvasNode =
  | { id: string; kind: 'trigger' }
  | { id: string; kind: 'step'; step: WorkflowStep }
  | { id: string; kind: 'open'; slot: Slot | null; ghost: boolean };

export interface CanvasEdge {
  id: string;
  source: string;
  target: string;
  branch: Branch | null;
  /** The transition it draws; null for the trigger's edge and the edges to open ends. */
  transition: WorkflowTransition | null;
}

export interface Positioned<T> {
  item: T;
  x: number;
  y: number;
  width: number;
  height: number;
}

export const NODE_SIZE = {
  trigger: { width: 260, height: 72 },
  step: { width: 260, height: 96 },
  open: { width: 132, height: 44 },
} as const;

const openId = (slot: Slot | null) => `open:${slot ? `${slot.stepId}:${slot.branch ?? ''}` : TRIGGER_ID}`;

/** The nodes and edges of the canvas: the trigger, the steps, and (when `editable`) their open ends. */
export function canvasGraph(workflow: WorkflowDetail, editable: boolean): { nodes: CanvasNode[]; edges: CanvasEdge[] } {
  const { steps, transitions } = workflow;
  const nodes: CanvasNode[] = [{ id: TRIGGER_ID, kind: 'trigger' }];
  const edges: CanvasEdge[] = [];
  for (const step of steps) nodes.push({ id: step.id, kind: 'step', step });
  for (const t of transitions)
    edges.push({ id: t.id, source: t.fromStepId, target: t.toStepId, branch: t.branch, transition: t });

  const entry = entryStep(
    steps.map((s) => ({ id: s.id, type: s.type })),
    transitions.map((t) => ({ id: t.id, from: t.fromStepId, to: t.toStepId, branch: t.branch })),
  );
  if (entry)
    edges.push({ id: `${TRIGGER_ID}:${entry}`, source: TRIGGER_ID, target: entry, branch: null, transition: null });
  if (!editable) return { nodes, edges };

  const open = (slot: Slot | null, ghost: boolean) => {
    const id = openId(slot);
    nodes.push({ id, kind: 'open', slot, ghost });
    edges.push({
      id: `${id}:edge`,
      source: slot?.stepId ?? TRIGGER_ID,
      target: id,
      branch: slot?.branch ?? null,
      transition: null,
    });
  };
  if (steps.length === 0) open(null, false);
  for (const step of steps) {
    const slots = slotsOf(step, transitions);
    for (const slot of slots) if (!slotTransition(transitions, slot)) open(slot, slot.branch !== null);
  }
  return { nodes, edges };
}

/** Positions every node with dagre, top to bottom; a step the user placed keeps its stored position. */
export function layoutGraph(nodes: CanvasNode[], edges: CanvasEdge[]): Positioned<CanvasNode>[] {
  const g = new graphlib.Graph();
  g.setGraph({ rankdir: 'TB', nodesep: 48, ranksep: 64, marginx: 24, marginy: 24 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.id, { ...NODE_SIZE[n.kind] });
  for (const e of edges) g.setEdge(e.source, e.target);
  layout(g);
  return nodes.map((item) => {
    const size = NODE_SIZE[item.kind];
    const placed = item.kind === 'step' ? item.step.position : null;
    const at = g.node(item.id);
    return {
      item,
      width: size.width,
      height: size.height,
      x: placed ? placed.x : at.x - size.width / 2,
      y: placed ? placed.y : at.y - size.height / 2,
    };
  });
}

/** The steps in the order a reader follows them: breadth first from the entry, then any left over. */
export function readingOrder(workflow: WorkflowDetail): WorkflowStep[] {
  const { steps, transitions } = workflow;
  const byId = new Map(steps.map((s) => [s.id, s]));
  const entry = entryStep(
    steps.map((s) => ({ id: s.id, type: s.type })),
    transitions.map((t) => ({ id: t.id, from: t.fromStepId, to: t.toStepId, branch: t.branch })),
  );
  const seen = new Set<string>();
  const queue = entry ? [entry] : [];
  const out: WorkflowStep[] = [];
  while (queue.length > 0) {
    const id = queue.shift()!;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(byId.get(id)!);
    for (const t of transitions) if (t.fromStepId === id) queue.push(t.toStepId);
  }
  for (const s of steps) if (!seen.has(s.id)) out.push(s);
  return out;
}
