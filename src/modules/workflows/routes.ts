import { z } from 'zod';
import { projectOf } from '../../platform/http/auth.js';
import { created, noContent } from '../../platform/http/envelope.js';
import { moduleRoutes, resourceById } from '../../platform/http/module-routes.js';
import * as executions from './executions.js';
import * as s from './schemas.js';
import * as service from './service.js';

export const workflowRoutes = moduleRoutes(
  'Workflows',
  async (app, ctx) => {
    app.get('/workflows', { schema: { response: { 200: z.array(s.workflowListItemSchema) } } }, (req) =>
      service.listWorkflows(ctx, projectOf(req).id),
    );
    app.get(
      '/workflows/fields',
      { schema: { querystring: s.fieldsQuery, response: { 200: s.fieldsResponse } } },
      (req) => service.workflowFields(ctx, projectOf(req).id, req.query.event),
    );
    app.post(
      '/workflows',
      { schema: { body: s.createWorkflowBody, response: { 201: s.workflowSchema } } },
      (req, reply) => created(reply, service.createWorkflow(ctx, projectOf(req).id, req.body)),
    );
    app.post(
      '/workflows/:id/duplicate',
      { schema: { params: s.idParams, response: { 201: s.workflowDetailSchema } } },
      (req, reply) => created(reply, service.duplicateWorkflow(ctx, projectOf(req).id, req.params.id)),
    );
    app.get(
      '/workflows/:id/stats',
      { schema: { params: s.idParams, querystring: s.stepStatsQuery, response: { 200: s.stepStatsSchema } } },
      (req) => service.stepStats(ctx, projectOf(req).id, req.params.id, req.query),
    );

    app.post(
      '/workflows/:id/steps',
      { schema: { params: s.idParams, body: s.createStepBody, response: { 201: s.stepSchema } } },
      (req, reply) =>
        created(
          reply,
          service.addStep(ctx, projectOf(req).id, req.params.id, req.body as Parameters<typeof service.addStep>[3]),
        ),
    );
    app.patch(
      '/workflows/:id/steps/:stepId',
      { schema: { params: s.stepParams, body: s.patchStepBody, response: { 200: s.stepSchema } } },
      (req) => service.updateStep(ctx, projectOf(req).id, req.params.id, req.params.stepId, req.body),
    );
    app.delete(
      '/workflows/:id/steps/:stepId',
      { schema: { params: s.stepParams, querystring: s.deleteStepQuery } },
      (req, reply) =>
        noContent(
          reply,
          service.deleteStep(ctx, projectOf(req).id, req.params.id, req.params.stepId, req.query.splice),
        ),
    );
    app.post(
      '/workflows/:id/transitions',
      { schema: { params: s.idParams, body: s.createTransitionBody, response: { 201: s.transitionSchema } } },
      (req, reply) => created(reply, service.addTransition(ctx, projectOf(req).id, req.params.id, req.body)),
    );
    app.delete('/workflows/:id/transitions/:transitionId', { schema: { params: s.transitionParams } }, (req, reply) =>
      noContent(reply, service.deleteTransition(ctx, projectOf(req).id, req.params.id, req.params.transitionId)),
    );

    app.post(
      '/workflows/:id/executions',
      { schema: { params: s.idParams, body: s.startExecutionBody, response: { 201: s.executionSchema } } },
      (req, reply) => created(reply, executions.startExecution(ctx, projectOf(req).id, req.params.id, req.body)),
    );
    app.get(
      '/workflows/:id/executions',
      {
        schema: {
          params: s.idParams,
          querystring: s.listExecutionsQuery,
          response: { 200: s.executionPageSchema },
        },
      },
      (req) => executions.listExecutions(ctx, projectOf(req).id, req.params.id, req.query),
    );
    app.post(
      '/workflows/:id/executions/cancel-all',
      {
        schema: {
          params: s.idParams,
          response: { 200: z.object({ workflowId: z.string().uuid(), cancelled: z.number().int() }) },
        },
      },
      (req) => executions.cancelAllExecutions(ctx, projectOf(req).id, req.params.id),
    );
    app.get(
      '/workflows/:id/executions/:executionId',
      { schema: { params: s.executionParams, response: { 200: s.executionDetailSchema } } },
      (req) => executions.getExecution(ctx, projectOf(req).id, req.params.id, req.params.executionId),
    );
    app.delete(
      '/workflows/:id/executions/:executionId',
      { schema: { params: s.executionParams, response: { 200: s.executionSchema } } },
      (req) => executions.cancelExecution(ctx, projectOf(req).id, req.params.id, req.params.executionId),
    );
    resourceById(
      app,
      ctx,
      '/workflows',
      {
        resource: s.workflowSchema,
        detail: s.workflowDetailSchema,
        update: { method: 'PATCH', body: s.patchWorkflowBody },
      },
      { get: service.getWorkflow, update: service.updateWorkflow, delete: service.deleteWorkflow },
    );
  },
  { scope: 'workflows' },
);
