import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { projectOf } from '../../platform/http/auth.js';
import { created } from '../../platform/http/envelope.js';
import { moduleRoutes, resourceById } from '../../platform/http/module-routes.js';
import * as s from './schemas.js';
import * as service from './service.js';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The legacy 400 (docs/api-rules.md#legacy-400) for a dynamic segment without an object `condition`; a static segment's
 * condition is ignored, so it is dropped before validation.
 */
async function conditionByType(request: FastifyRequest, reply: FastifyReply) {
  const body = request.body;
  if (!isRecord(body)) return;
  if (body.type === 'STATIC') {
    delete body.condition;
  } else if ((body.type === undefined || body.type === 'DYNAMIC') && !isRecord(body.condition)) {
    return reply.status(400).send({ error: 'Missing required field: condition (an object) for a DYNAMIC segment' });
  }
}

export const segmentRoutes = moduleRoutes(
  'Segments',
  async (app, ctx) => {
    app.post(
      '/segments',
      {
        config: { legacyRequired: ['name'] },
        preValidation: conditionByType,
        schema: { body: s.createSegmentBody, response: { 201: s.segmentSchema } },
      },
      (req, reply) => created(reply, service.createSegment(ctx, projectOf(req).id, req.body)),
    );
    // Counting changes nothing: the reading scope is enough.
    app.post(
      '/segments/estimate',
      { config: { scope: 'contacts:read' }, schema: { body: s.estimateBody, response: { 200: s.estimateResponse } } },
      (req) => service.estimateSegment(ctx, projectOf(req).id, req.body),
    );
    app.post(
      '/segments/count',
      { config: { scope: 'contacts:read' }, schema: { body: s.countBody, response: { 200: s.countResponse } } },
      (req) => service.countCondition(ctx, projectOf(req).id, req.body),
    );
    app.get('/segments', { schema: { response: { 200: z.array(s.segmentSchema) } } }, (req) =>
      service.listSegments(ctx, projectOf(req).id),
    );

    app.get(
      '/contacts/:id/segments',
      { schema: { params: s.idParams, response: { 200: s.contactSegmentsResponse } } },
      (req) => service.contactSegments(ctx, projectOf(req).id, req.params.id),
    );
    app.get(
      '/segments/:id/contacts',
      { schema: { params: s.idParams, querystring: s.membersQuery, response: { 200: s.memberPageSchema } } },
      (req) => service.listSegmentContacts(ctx, projectOf(req).id, req.params.id, req.query),
    );
    app.post(
      '/segments/:id/members',
      { schema: { params: s.idParams, body: s.addMembersBody, response: { 200: s.addMembersResponse } } },
      (req) => service.addSegmentMembers(ctx, projectOf(req).id, req.params.id, req.body),
    );
    app.delete(
      '/segments/:id/members',
      { schema: { params: s.idParams, body: s.removeMembersBody, response: { 200: s.removeMembersResponse } } },
      (req) => service.removeSegmentMembers(ctx, projectOf(req).id, req.params.id, req.body),
    );
    app.post('/segments/:id/compute', { schema: { params: s.idParams, response: { 200: s.computeResponse } } }, (req) =>
      service.computeSegment(ctx, projectOf(req).id, req.params.id),
    );
    app.post('/segments/:id/refresh', { schema: { params: s.idParams, response: { 200: s.segmentSchema } } }, (req) =>
      service.refreshSegment(ctx, projectOf(req).id, req.params.id),
    );
    resourceById(
      app,
      ctx,
      '/segments',
      { resource: s.segmentSchema, update: { method: 'PATCH', body: s.patchSegmentBody } },
      { get: service.getSegment, update: service.updateSegment, delete: service.deleteSegment },
    );
  },
  { scope: { read: 'contacts:read', write: 'contacts:write' } },
);
