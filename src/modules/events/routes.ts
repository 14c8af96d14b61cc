import { z } from 'zod';
import { projectOf } from '../../platform/http/auth.js';
import { moduleRoutes } from '../../platform/http/module-routes.js';
import * as s from './schemas.js';
import * as service from './service.js';

export const eventRoutes = moduleRoutes(
  'Events',
  async (app, ctx) => {
    app.get('/events', { schema: { querystring: s.listEventsQuery, response: { 200: s.eventPageSchema } } }, (req) =>
      service.listEvents(ctx, { ...req.query, projectId: projectOf(req).id, after: req.query.cursor }),
    );
    app.get('/events/stats', { schema: { querystring: s.statsQuery, response: { 200: s.statsResponse } } }, (req) =>
      service.eventStats(ctx, projectOf(req).id, req.query),
    );
    app.get('/events/names', { schema: { response: { 200: z.object({ names: z.array(z.string()) }) } } }, (req) =>
      service.eventNames(ctx, projectOf(req).id),
    );
    app.get(
      '/events/:eventName/usage',
      { schema: { params: s.eventNameParams, response: { 200: s.eventUsageResponse } } },
      (req) => service.eventUsage(ctx, projectOf(req).id, req.params.eventName),
    );
    app.delete(
      '/events/:eventName',
      {
        schema: {
          params: s.eventNameParams,
          response: { 200: z.object({ event: z.string(), deleted: z.number().int() }) },
        },
      },
      (req) => service.deleteEvents(ctx, projectOf(req).id, req.params.eventName),
    );
  },
  { scope: { read: 'contacts:read', write: 'contacts:write' } },
);
