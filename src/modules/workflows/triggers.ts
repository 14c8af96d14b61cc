import type { AppContext } from '../../platform/context.js';
import { cachedTriggers, listenForWorkflowChanges } from './graphs.js';
import * as repo from './repo.js';

/**
 * What every stored event (tracked by a client or emitted by the service) does to workflows, inside
 * the dispatcher's transaction for that event: it resumes the contact's executions waiting for it,
 * and starts the enabled workflows it triggers. An event-triggered execution's context holds the
 * event: `{ event: { id, name, data, createdAt } }`.
 */
export async function subscribeWorkflowTriggers(ctx: AppContext): Promise<void> {
  await listenForWorkflowChanges(ctx);
  ctx.bus.subscribe(async (tx, event) => {
    const workflows = (await cachedTriggers(ctx, tx, event.projectId)).get(event.name) ?? [];
    const context = { event: { id: event.id, name: event.name, data: event.data, createdAt: event.createdAt.toISOString() } };
    const starts = workflows.map((g) => ({
      workflowId: g.workflow.id,
      contactId: event.contactId,
      entryStepId: g.entry!,
      context,
      once: !g.workflow.allow_reentry,
    }));
    await repo.applyEvent(tx, event, starts, ctx.clock.now());
  });
}
