import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../platform/context.js';
import { projectOf } from '../../platform/http/auth.js';
import { created, noContent, wrapped } from '../../platform/http/envelope.js';
import * as s from './schemas.js';
import * as service from './service.js';

/**
 * Create, duplicate and the actions (send, cancel, test) answer `{ success, data }` (actions add a
 * `message`); reads and the replace answer the campaign itself.
 */
export async function campaignRoutes(fastify: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['Campaigns'];

  app.post(
    '/campaigns',
    { schema: { tags, body: s.campaignBody, response: { 201: s.wrappedCampaign } } },
    async (req, reply) => created(reply, wrapped(await service.createCampaign(ctx, projectOf(req).id, req.body))),
  );
  app.get(
    '/campaigns',
    { schema: { tags, querystring: s.listCampaignsQuery, response: { 200: s.campaignPageSchema } } },
    (req) => service.listCampaigns(ctx, { ...req.query, projectId: projectOf(req).id }),
  );
  app.get('/campaigns/:id', { schema: { tags, params: s.idParams, response: { 200: s.campaignSchema } } }, (req) =>
    service.getCampaign(ctx, projectOf(req).id, req.params.id),
  );
  app.put(
    '/campaigns/:id',
    { schema: { tags, params: s.idParams, body: s.campaignBody, response: { 200: s.campaignSchema } } },
    (req) => service.replaceCampaign(ctx, projectOf(req).id, req.params.id, req.body),
  );
  app.delete('/campaigns/:id', { schema: { tags, params: s.idParams } }, (req, reply) =>
    noContent(reply, service.deleteCampaign(ctx, projectOf(req).id, req.params.id)),
  );
  app.post(
    '/campaigns/:id/duplicate',
    { schema: { tags, params: s.idParams, response: { 201: s.wrappedCampaign } } },
    async (req, reply) =>
      created(reply, wrapped(await service.duplicateCampaign(ctx, projectOf(req).id, req.params.id))),
  );
  app.post(
    '/campaigns/:id/send',
    { schema: { tags, params: s.idParams, body: s.sendBody, response: { 200: s.campaignAction } } },
    async (req) => {
      const { campaign, message } = await service.sendCampaign(
        ctx,
        projectOf(req).id,
        req.params.id,
        req.body?.scheduledFor,
      );
      return wrapped(campaign, message);
    },
  );
  app.post(
    '/campaigns/:id/cancel',
    { schema: { tags, params: s.idParams, response: { 200: s.campaignAction } } },
    async (req) => {
      const { campaign, message } = await service.cancelCampaign(ctx, projectOf(req).id, req.params.id);
      return wrapped(campaign, message);
    },
  );
  app.post(
    '/campaigns/:id/test',
    { schema: { tags, params: s.idParams, body: s.testBody, response: { 200: s.testResponse } } },
    async (req) => {
      const sent = await service.sendTest(ctx, projectOf(req).id, req.params.id, req.body.email);
      return wrapped(sent, `A test email is on its way to ${sent.to}`);
    },
  );
  app.get('/campaigns/:id/stats', { schema: { tags, params: s.idParams, response: { 200: s.statsSchema } } }, (req) =>
    service.campaignStats(ctx, projectOf(req).id, req.params.id),
  );
}
