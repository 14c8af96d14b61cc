import { entryStep, type GraphTransition } from '../../domain/workflows/graph-rules.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/client.js';
import type { NotifiedCache } from '../../platform/notified-cache.js';
import type { StepRow, WorkflowRow } from './repo.js';
import * as repo from './repo.js';

/** A workflow as the engine runs it. */
export interface WorkflowGraph {
  workflow: WorkflowRow;
  steps: Map<string, StepRow>;
  transitions: GraphTransition[];
  /** The first step, or null while the graph has no single entry. */
  entry: string | null;
}

export async function loadGraph(ex: Executor, workflow: WorkflowRow): Promise<WorkflowGraph> {
  const [steps, transitions] = await Promise.all([
    repo.workflowSteps(ex, workflow.id),
    repo.workflowTransitions(ex, workflow.id),
  ]);
  const graphTransitions = transitions.map((t) => ({
    id: t.id,
    from: t.from_step_id,
    to: t.to_step_id,
    branch: t.branch,
  }));
  return {
    workflow,
    steps: new Map(steps.map((s) => [s.id, s])),
    transitions: graphTransitions,
    entry: entryStep(
      steps.map((s) => ({ id: s.id, type: s.type })),
      graphTransitions,
    ),
  };
}

const cache = (ctx: AppContext) => ctx.caches.of<unknown>(repo.WORKFLOWS_CHANNEL);

/** Starts the cache's LISTEN before it is used inside the event dispatcher's transactions. */
export const listenForWorkflowChanges = (ctx: AppContext) => cache(ctx).listen();

/** A workflow's graph, read once per process until any workflow changes (NOTIFY). */
export function cachedGraph(ctx: AppContext, workflowId: string): Promise<WorkflowGraph | null> {
  return (cache(ctx) as NotifiedCache<WorkflowGraph | null>).get(`graph:${workflowId}`, async () => {
    const workflow = await repo.workflowById(ctx.db, workflowId);
    return workflow ? loadGraph(ctx.db, workflow) : null;
  });
}

/**
 * The enabled event-triggered workflows of a project, by trigger event, cached like the graphs.
 * Read through `ex`: the caller may hold the embedded database's only connection in a transaction.
 */
export function cachedTriggers(
  ctx: AppContext,
  ex: Executor,
  projectId: string,
): Promise<Map<string, WorkflowGraph[]>> {
  return (cache(ctx) as NotifiedCache<Map<string, WorkflowGraph[]>>).get(`triggers:${projectId}`, async () => {
    const byEvent = new Map<string, WorkflowGraph[]>();
    for (const workflow of await repo.enabledEventWorkflows(ex, projectId)) {
      const event = workflow.trigger_config.event;
      if (typeof event !== 'string') continue;
      const graph = await loadGraph(ex, workflow);
      if (!graph.entry) continue;
      byEvent.set(event, [...(byEvent.get(event) ?? []), graph]);
    }
    return byEvent;
  });
}
