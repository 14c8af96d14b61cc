import { describe, expect, it } from 'vitest';
import type { WorkflowDetail, WorkflowStep, WorkflowTransition } from '../../src/api.js';
import { restore, snapshotOf } from '../../web/src/pages/workflows/graph-history.js';
import { canvasGraph, layoutGraph, readingOrder, TRIGGER_ID } from '../../web/src/pages/workflows/graph-model.js';
import { pathEdgeIds } from '../../web/src/pages/workflows/step-views.js';
import type { WorkflowCalls } from '../../web/src/pages/workflows/workflows-api.js';

const step = (id: string, type: WorkflowStep['type'], config: Record<string, unknown> = {}): WorkflowStep => ({
  id,
  workflowId: 'w',
  type,
  name: id,
  config,
  position: null,
  createdAt: '',
  updatedAt: '',
});
const edge = (
  id: string,
  from: string,
  to: string,
  branch: WorkflowTransition['branch'] = null,
): WorkflowTransition => ({
  id,
  workflowId: 'w',
  fromStepId: from,
  toStepId: to,
  branch,
  createdAt: '',
});
const workflow = (steps: WorkflowStep[], transitions: WorkflowTransition[]) =>
  ({ id: 'w', name: 'W', steps, transitions }) as unknown as WorkflowDetail;

// send → wait → check (yes → tips, no: empty)
const drawn = workflow(
  [step('send', 'SEND_EMAIL'), step('wait', 'DELAY'), step('check', 'CONDITION'), step('tips', 'SEND_EMAIL')],
  [edge('t1', 'send', 'wait'), edge('t2', 'wait', 'check'), edge('t3', 'check', 'tips', 'yes')],
);

describe('the canvas graph', () => {
  it('puts the trigger above the first step, a dashed end on an empty branch and a "+" after an open step', () => {
    const { nodes, edges } = canvasGraph(drawn, true);
    expect(edges).toContainEqual(expect.objectContaining({ source: TRIGGER_ID, target: 'send' }));
    const open = nodes.filter((n) => n.kind === 'open');
    expect(open).toEqual([
      { id: 'open:check:no', kind: 'open', slot: { stepId: 'check', branch: 'no' }, ghost: true },
      { id: 'open:tips:', kind: 'open', slot: { stepId: 'tips', branch: null }, ghost: false },
    ]);
    expect(edges.find((e) => e.target === 'open:check:no')?.branch).toBe('no');
  });

  it('shows no open ends when the workflow cannot change, and a "+" under the trigger when it has no steps', () => {
    expect(canvasGraph(drawn, false).nodes.some((n) => n.kind === 'open')).toBe(false);
    expect(canvasGraph(workflow([], []), true).nodes.map((n) => n.id)).toEqual([TRIGGER_ID, 'open:trigger']);
  });

  it('lays the graph out top to bottom, trigger first', () => {
    const { nodes, edges } = canvasGraph(drawn, true);
    const at = new Map(layoutGraph(nodes, edges).map((p) => [p.item.id, p.y]));
    expect(at.get(TRIGGER_ID)!).toBeLessThan(at.get('send')!);
    expect(at.get('send')!).toBeLessThan(at.get('wait')!);
    expect(at.get('check')!).toBeLessThan(at.get('tips')!);
    expect(readingOrder(drawn).map((s) => s.id)).toEqual(['send', 'wait', 'check', 'tips']);
  });

  it('draws a path along the transitions an execution took', () => {
    const path = {
      status: 'completed',
      currentStepId: null,
      steps: [
        { stepId: 'send', branch: null },
        { stepId: 'wait', branch: null },
        { stepId: 'check', branch: 'yes' },
        { stepId: 'tips', branch: null },
      ],
    } as unknown as Parameters<typeof pathEdgeIds>[1];
    expect([...pathEdgeIds(drawn, path)].sort()).toEqual(['t1', 't2', 't3', `${TRIGGER_ID}:send`]);
  });
});

describe('undo through the API', () => {
  it('brings back a deleted step under a new id with its transitions, and removes what was added', async () => {
    const calls: string[] = [];
    const fake = {
      deleteTransition: async (id: string) => void calls.push(`delete transition ${id}`),
      addStep: async (s: { type: string }) => {
        calls.push(`add ${s.type}`);
        return { id: 'new-wait' };
      },
      patchStep: async (id: string) => void calls.push(`patch ${id}`),
      addTransition: async (from: string, to: string, branch: string | null) =>
        void calls.push(`link ${from}→${to}${branch ? `:${branch}` : ''}`),
      deleteStep: async (id: string) => void calls.push(`delete step ${id}`),
    } as unknown as WorkflowCalls;
    // Now: "wait" was deleted with splice and an EXIT added after "tips".
    const now = workflow(
      [step('send', 'SEND_EMAIL'), step('check', 'CONDITION'), step('tips', 'SEND_EMAIL'), step('end', 'EXIT')],
      [edge('t9', 'send', 'check'), edge('t3', 'check', 'tips', 'yes'), edge('t4', 'tips', 'end')],
    );
    const ids = await restore(fake, now, snapshotOf(drawn));
    expect(ids).toEqual(new Map([['wait', 'new-wait']]));
    expect(calls).toEqual([
      'delete transition t9',
      'delete transition t4',
      'add DELAY',
      'link send→new-wait',
      'link new-wait→check',
      'delete step end',
    ]);
  });
});
