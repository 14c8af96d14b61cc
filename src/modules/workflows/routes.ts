import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { projectOf } from '../../platform/http/auth.js';
import { created, noContent } from '../../platform/http/envelope.js';
import * as s from './schemas.js';
import * as service from './service.js';

export async function workflowRoutes(fastify: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['Workflows'];

  app.get('/workflows', { schema: { tags, response: { 200: z.array(s.workflowSchema) } } }, (req) =>
    service.listWorkflows(ctx, projectOf(req).id),
  );
  app.get('/workflows/fields', { schema: { tags, response: { 200: s.fieldsResponse } } }, (req) =>
    service.workflowFields(ctx, projectOf(req).id),
  );
  app.post(
    '/workflows',
    { schema: { tags, body: s.createWorkflowBody, response: { 201: s.workflowSchema } } },
    (req, reply) => created(reply, service.createWorkflow(ctx, projectOf(req).id, req.body)),
  );
  app.get(
    '/workflows/:id',
    { schema: { tags, params: s.idParams, response: { 200: s.workflowDetailSchema } } },
    (req) => service.getWorkflow(ctx, projectOf(req).id, req.params.id),
  );
  app.patch(
    '/workflows/:id',
    { schema: { tags, params: s.idParams, body: s.patchWorkflowBody, response: { 200: s.workflowSchema } } },
    (req) => service.updateWorkflow(ctx, projectOf(req).id, req.params.id, req.body),
  );
  app.delete('/workflows/:id', { schema: { tags, params: s.idParams } }, (req, reply) =>
    noContent(reply, service.deleteWorkflow(ctx, projectOf(req).id, req.params.id)),
  );

  app.post(
    '/workflows/:id/steps',
    { schema: { tags, params: s.idParams, body: s.createStepBody, response: { 201: s.stepSchema } } },
    (req, reply) =>
      created(
        reply,
        service.addStep(ctx, projectOf(req).id, req.params.id, req.body as Parameters<typeof service.addStep>[3]),
      ),
  );
  app.patch(
    '/workflows/:id/steps/:stepId',
    { schema: { tags, params: s.stepParams, body: s.patchStepBody, response: { 200: s.stepSchema } } },
    (req) => service.updateStep(ctx, projectOf(req).id, req.params.id, req.params.stepId, req.body),
  );
  app.delete(
    '/workflows/:id/steps/:stepId',
    { schema: { tags, params: s.stepParams, querystring: s.deleteStepQuery } },
    (req, reply) =>
      noContent(reply, service.deleteStep(ctx, projectOf(req).id, req.params.id, req.params.stepId, req.query.splice)),
  );
  app.post(
    '/workflows/:id/transitions',
    { schema: { tags, params: s.idParams, body: s.createTransitionBody, response: { 201: s.transitionSchema } } },
    (req, reply) => created(reply, service.addTransition(ctx, projectOf(req).id, req.params.id, req.body)),
  );
  app.delete(
    '/workflows/:id/transitions/:transitionId',
    { schema: { tags, params: s.transitionParams } },
    (req, reply) =>
      noContent(reply, service.deleteTransition(ctx, projectOf(req).id, req.params.id, req.params.transitionId)),
  );

  app.post(
    '/workflows/:id/executions',
    { schema: { tags, params: s.idParams, body: s.startExecutionBody, response: { 201: s.executionSchema } } },
    (req, reply) => created(reply, service.startExecution(ctx, projectOf(req).id, req.params.id, req.body)),
  );
  app.get(
    '/workflows/:id/executions',
    {
      schema: {
        tags,
        params: s.idParams,
        querystring: s.listExecutionsQuery,
        response: { 200: s.executionPageSchema },
      },
    },
    (req) => service.listExecutions(ctx, projectOf(req).id, req.params.id, req.query),
  );
  app.post(
    '/workflows/:id/executions/cancel-all',
    {
      schema: {
        tags,
        params: s.idParams,
        response: { 200: z.object({ workflowId: z.string().uuid(), cancelled: z.number().int() }) },
      },
    },
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
