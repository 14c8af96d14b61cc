import type { AppContext } from '../../platform/context.js';
import * as executions from './executions-repo.js';
import { cachedTriggers, listenForWorkflowChanges } from './graph-cache.js';
import * as repo from './repo.js';

/**
 * What every stored event (tracked by a client or emitted by the service) does to workflows, inside
 * the dispatcher's transaction for its batch: it resumes the contact's executions waiting for it,
 * and starts the enabled workflows it triggers. A batch of events takes one statement
 * (`executions.applyEvents`), with the effect of the events taken one by one. An event-triggered
 * execution's context holds the event: `{ event: { id, name, data, createdAt } }`.
 */
export async function subscribeWorkflowTriggers(ctx: AppContext): Promise<void> {
  await listenForWorkflowChanges(ctx);
  ctx.bus.subscribe(
    async (tx, events) => {
      const starts: (executions.NewExecution & { projectId: string })[] = [];
      for (const event of events) {
        const workflows = (await cachedTriggers(ctx, tx, event.projectId)).get(event.name) ?? [];
        if (workflows.length === 0) continue;
        const context = {
          event: { id: event.id, name: event.name, data: event.data, createdAt: event.createdAt.toISOString() },
        };
        for (const g of workflows) {
          starts.push({
            projectId: event.projectId,
            workflowId: g.workflow.id,
            contactId: event.contactId,
            entryStepId: g.entry!,
            context,
            once: !g.workflow.allow_reentry,
          });
        }
      }
      await executions.applyEvents(tx, events, starts, ctx.clock.now());
    },
    { wants: repo.WORKFLOWS_WANT_EVENT },
  );
}
