import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { projectOf } from '../../platform/http/auth.js';
import * as s from './schemas.js';
import * as service from './service.js';

export async function workflowRoutes(fastify: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['Workflows'];

  app.get('/workflows', { schema: { tags, response: { 200: z.array(s.workflowSchema) } } }, (req) => service.listWorkflows(ctx, projectOf(req).id));
  app.get('/workflows/fields', { schema: { tags, response: { 200: s.fieldsResponse } } }, (req) => service.workflowFields(ctx, projectOf(req).id));
  app.post('/workflows', { schema: { tags, body: s.createWorkflowBody, response: { 201: s.workflowSchema } } }, async (req, reply) => {
    const workflow = await service.createWorkflow(ctx, projectOf(req).id, req.body);
    reply.status(201);
    return workflow;
  });
  app.get('/workflows/:id', { schema: { tags, params: s.idParams, response: { 200: s.workflowDetailSchema } } }, (req) =>
    service.getWorkflow(ctx, projectOf(req).id, req.params.id),
  );
  app.patch('/workflows/:id', { schema: { tags, params: s.idParams, body: s.patchWorkflowBody, response: { 200: s.workflowSchema } } }, (req) =>
    service.updateWorkflow(ctx, projectOf(req).id, req.params.id, req.body),
  );
  app.delete('/workflows/:id', { schema: { tags, params: s.idParams } }, async (req, reply) => {
    await service.deleteWorkflow(ctx, projectOf(req).id, req.params.id);
    return reply.status(204).send();
  });

  app.post('/workflows/:id/steps', { schema: { tags, params: s.idParams, body: s.createStepBody, response: { 201: s.stepSchema } } }, async (req, reply) => {
    const step = await service.addStep(ctx, projectOf(req).id, req.params.id, req.body as Parameters<typeof service.addStep>[3]);
    reply.status(201);
    return step;
  });
  app.patch('/workflows/:id/steps/:stepId', { schema: { tags, params: s.stepParams, body: s.patchStepBody, response: { 200: s.stepSchema } } }, (req) =>
    service.updateStep(ctx, projectOf(req).id, req.params.id, req.params.stepId, req.body),
  );
  app.delete('/workflows/:id/steps/:stepId', { schema: { tags, params: s.stepParams, querystring: s.deleteStepQuery } }, async (req, reply) => {
    await service.deleteStep(ctx, projectOf(req).id, req.params.id, req.params.stepId, req.query.splice);
    return reply.status(204).send();
  });
  app.post(
    '/workflows/:id/transitions',
    { schema: { tags, params: s.idParams, body: s.createTransitionBody, response: { 201: s.transitionSchema } } },
    async (req, reply) => {
      const transition = await service.addTransition(ctx, projectOf(req).id, req.params.id, req.body);
      reply.status(201);
      return transition;
    },
  );
  app.delete('/workflows/:id/transitions/:transitionId', { schema: { tags, params: s.transitionParams } }, async (req, reply) => {
    await service.deleteTransition(ctx, projectOf(req).id, req.params.id, req.params.transitionId);
    return reply.status(204).send();
  });

  app.post(
    '/workflows/:id/executions',
    { schema: { tags, params: s.idParams, body: s.startExecutionBody, response: { 201: s.executionSchema } } },
    async (req, reply) => {
      const execution = await service.startExecution(ctx, projectOf(req).id, req.params.id, req.body);
      reply.status(201);
      return execution;
    },
  );
  app.get(
    '/workflows/:id/executions',
    { schema: { tags, params: s.idParams, querystring: s.listExecutionsQuery, response: { 200: s.executionPageSchema } } },
    (req) => service.listExecutions(ctx, projectOf(req).id, req.params.id, req.query),
  );
  app.post(
    '/workflows/:id/executions/cancel-all',
    { schema: { tags, params: s.idParams, response: { 200: z.object({ workflowId: z.string().uuid(), cancelled: z.number().int() }) } } },
    (req) => service.cancelAllExecutions(ctx, projectOf(req).id, req.params.id),
  );
  app.get(
    '/workflows/:id/executions/:executionId',
    { schema: { tags, params: s.executionParams, response: { 200: s.executionDetailSchema } } },
    (req) => service.getExecution(ctx, projectOf(req).id, req.params.id, req.params.executionId),
  );
  app.delete(
    '/workflows/:id/executions/:executionId',
    { schema: { tags, params: s.executionParams, response: { 200: s.executionSchema } } },
    (req) => service.cancelExecution(ctx, projectOf(req).id, req.params.id, req.params.executionId),
  );
}
