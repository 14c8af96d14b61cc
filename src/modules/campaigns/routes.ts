import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../platform/context.js';
import { projectOf } from '../../platform/http/auth.js';
import * as s from './schemas.js';
import * as service from './service.js';

/**
 * Create, duplicate and the actions (send, cancel, test) answer `{ success, data }` (actions add a
 * `message`); reads and the replace answer the campaign itself.
 */
export async function campaignRoutes(fastify: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['Campaigns'];

  app.post('/campaigns', { schema: { tags, body: s.campaignBody, response: { 201: s.wrappedCampaign } } }, async (req, reply) => {
    const created = await service.createCampaign(ctx, projectOf(req).id, req.body);
    reply.status(201);
    return created;
  });
  app.get('/campaigns', { schema: { tags, querystring: s.listCampaignsQuery, response: { 200: s.campaignPageSchema } } }, (req) =>
    service.listCampaigns(ctx, { ...req.query, projectId: projectOf(req).id }),
  );
  app.get('/campaigns/:id', { schema: { tags, params: s.idParams, response: { 200: s.campaignSchema } } }, (req) =>
    service.getCampaign(ctx, projectOf(req).id, req.params.id),
  );
  app.put('/campaigns/:id', { schema: { tags, params: s.idParams, body: s.campaignBody, response: { 200: s.campaignSchema } } }, (req) =>
    service.replaceCampaign(ctx, projectOf(req).id, req.params.id, req.body),
  );
  app.delete('/campaigns/:id', { schema: { tags, params: s.idParams } }, async (req, reply) => {
    await service.deleteCampaign(ctx, projectOf(req).id, req.params.id);
    return reply.status(204).send();
  });
  app.post('/campaigns/:id/duplicate', { schema: { tags, params: s.idParams, response: { 201: s.wrappedCampaign } } }, async (req, reply) => {
    const copy = await service.duplicateCampaign(ctx, projectOf(req).id, req.params.id);
    reply.status(201);
    return copy;
  });
  app.post('/campaigns/:id/send', { schema: { tags, params: s.idParams, body: s.sendBody, response: { 200: s.campaignAction } } }, (req) =>
    service.sendCampaign(ctx, projectOf(req).id, req.params.id, req.body?.scheduledFor),
  );
  app.post('/campaigns/:id/cancel', { schema: { tags, params: s.idParams, response: { 200: s.campaignAction } } }, (req) =>
    service.cancelCampaign(ctx, projectOf(req).id, req.params.id),
  );
  app.post('/campaigns/:id/test', { schema: { tags, params: s.idParams, body: s.testBody, response: { 200: s.testResponse } } }, (req) =>
    service.sendTest(ctx, projectOf(req).id, req.params.id, req.body.email),
  );
  app.get('/campaigns/:id/stats', { schema: { tags, params: s.idParams, response: { 200: s.statsSchema } } }, (req) =>
    service.campaignStats(ctx, projectOf(req).id, req.params.id),
  );
}
