import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseDataPatch } from '../../domain/contact-data.js';
import { projectOf } from '../../platform/http/auth.js';
import { noContent, wrapped } from '../../platform/http/envelope.js';
import { AppError } from '../../platform/http/errors.js';
import { idempotencyKeyOf, requestIdentity } from '../../platform/http/idempotency.js';
import { moduleRoutes } from '../../platform/http/module-routes.js';
import { invalidCursorError, isKeysetCursor } from '../../platform/http/pagination.js';
import { readUpload } from '../../platform/http/uploads.js';
import { consentPageSchema, consentQuery } from '../consent/schemas.js';
import { listConsent } from '../consent/service.js';
import * as events from '../events/schemas.js';
import * as fields from './fields.js';
import * as jobs from './jobs.js';
import * as s from './schemas.js';
import * as service from './service.js';
import { trackerOf } from './track.js';

const MAX_IMPORT_BYTES = 5 * 1024 * 1024;

export const contactRoutes = moduleRoutes(
  'Contacts',
  async (app, ctx) => {
    await app.register(multipart, { limits: { fileSize: MAX_IMPORT_BYTES, files: 1, fields: 10 } });

    const tracker = trackerOf(ctx);
    const track = async (req: FastifyRequest & { body: z.infer<typeof s.trackBody> }) =>
      wrapped(await tracker.track(projectOf(req).id, req.body, requestIdentity(req)));
    const trackSchema = { tags: ['Events'], body: s.trackBody, response: { 200: s.trackResponse } };
    // The key header is checked before the body so a bad key is a 400 whatever the body holds.
    const checkKey = async (req: FastifyRequest) => void idempotencyKeyOf(req);
    app.post(
      '/v1/track',
      { config: { auth: 'public', scope: 'track' }, onRequest: checkKey, schema: trackSchema },
      track,
    );
    app.post('/events/track', { config: { scope: 'track' }, onRequest: checkKey, schema: trackSchema }, track);

    // A contact's timeline: 404 for a contact the project does not have.
    app.get(
      '/events/contact/:contactId',
      {
        schema: {
          tags: ['Events'],
          params: events.contactIdParams,
          querystring: events.listEventsQuery,
          response: { 200: events.eventPageSchema },
        },
      },
      (req) =>
        service.contactEvents(ctx, {
          ...req.query,
          projectId: projectOf(req).id,
          contactId: req.params.contactId,
          after: req.query.cursor,
        }),
    );

    app.get(
      '/contacts',
      { schema: { querystring: s.listContactsQuery, response: { 200: s.contactPageSchema } } },
      (req) => service.contactsPage(ctx, projectOf(req).id, req.query),
    );

    app.post(
      '/contacts',
      {
        config: { legacyRequired: ['email'] },
        schema: {
          body: s.createContactBody,
          response: { 200: s.upsertedContactSchema, 201: s.upsertedContactSchema },
        },
      },
      async (req, reply) => {
        const projectId = projectOf(req).id;
        const { contact, isNew } = await service.createContact(ctx, projectId, req.body);
        reply.status(isNew ? 201 : 200);
        return { ...contact, _meta: { isNew, isUpdate: !isNew } };
      },
    );

    app.post(
      '/contacts/lookup',
      { config: { scope: 'contacts:read' }, schema: { body: s.lookupBody, response: { 200: s.lookupResponse } } },
      async (req) => ({
        data: await service.lookupContacts(ctx, projectOf(req).id, req.body.emails),
      }),
    );

    app.get('/contacts/fields', { schema: { response: { 200: s.fieldsResponse } } }, (req) =>
      fields.listFields(ctx, projectOf(req).id),
    );
    app.get(
      '/contacts/fields/:field/values',
      {
        schema: {
          params: s.fieldParams,
          querystring: s.fieldValuesQuery,
          response: { 200: s.fieldValuesResponse },
        },
      },
      (req) => fields.fieldValues(ctx, projectOf(req).id, req.params.field, req.query.limit),
    );
    app.get(
      '/contacts/fields/:field/usage',
      { schema: { params: s.fieldParams, response: { 200: s.fieldUsageResponse } } },
      (req) => fields.fieldUsage(ctx, projectOf(req).id, req.params.field),
    );
    app.delete(
      '/contacts/fields/:field',
      {
        schema: {
          params: s.fieldParams,
          response: { 200: z.object({ field: z.string(), removedFrom: z.number().int() }) },
        },
      },
      (req) => fields.deleteField(ctx, projectOf(req).id, req.params.field),
    );

    app.post(
      '/contacts/import',
      { schema: { consumes: ['multipart/form-data'], querystring: s.importQuery, response: { 202: s.jobAccepted } } },
      async (req, reply) => {
        if (!req.isMultipart()) {
          throw new AppError(
            415,
            'UNSUPPORTED_MEDIA_TYPE',
            'Upload the CSV as multipart/form-data in a field named "file"',
          );
        }
        // A truncated or malformed multipart body is the client's error, not the server's.
        const unreadable = () =>
          new AppError(
            400,
            'INVALID_UPLOAD',
            'The multipart body could not be read (malformed or cut short); send the CSV in a field named "file"',
          );
        const file = await req.file().catch(() => {
          throw unreadable();
        });
        if (!file)
          throw new AppError(400, 'FILE_REQUIRED', 'No file in the upload; send the CSV in a field named "file"');
        const buffer = await readUpload(file, `A CSV may be at most ${MAX_IMPORT_BYTES / 1024 / 1024} MB`, unreadable);
        const job = await jobs.createImportJob(ctx, projectOf(req).id, buffer.toString('utf8'), req.query.preset);
        reply.status(202);
        return { jobId: job.id, ...job };
      },
    );
    app.get('/contacts/import/:jobId', { schema: { params: s.jobIdParams, response: { 200: s.jobSchema } } }, (req) =>
      jobs.getJob(ctx, projectOf(req).id, req.params.jobId, ['import']),
    );

    for (const action of ['subscribe', 'unsubscribe', 'delete'] as const) {
      app.post(
        `/contacts/bulk-${action}`,
        { schema: { body: s.bulkBody, response: { 202: s.jobAccepted } } },
        async (req, reply) => {
          const job = await jobs.createBulkJob(ctx, projectOf(req).id, action, req.body.contactIds);
          reply.status(202);
          return { jobId: job.id, ...job };
        },
      );
    }
    app.get('/contacts/bulk/:jobId', { schema: { params: s.jobIdParams, response: { 200: s.jobSchema } } }, (req) =>
      jobs.getJob(ctx, projectOf(req).id, req.params.jobId, ['subscribe', 'unsubscribe', 'delete']),
    );

    app.get('/contacts/:id', { schema: { params: s.idParams, response: { 200: s.contactSchema } } }, (req) =>
      service.getContact(ctx, projectOf(req).id, req.params.id),
    );
    // The contact's consent history: 404 for a contact the project does not have.
    app.get(
      '/contacts/:id/consent',
      { schema: { params: s.idParams, querystring: consentQuery, response: { 200: consentPageSchema } } },
      async (req) => {
        if (req.query.cursor && !isKeysetCursor(req.query.cursor, 'timestamp')) throw invalidCursorError();
        const { id } = await service.getContact(ctx, projectOf(req).id, req.params.id);
        return listConsent(ctx, projectOf(req).id, id, req.query);
      },
    );
    app.patch(
      '/contacts/:id',
      { schema: { params: s.idParams, body: s.patchContactBody, response: { 200: s.contactSchema } } },
      (req) =>
        service.updateContactById(ctx, projectOf(req).id, req.params.id, {
          email: req.body.email,
          subscribed: req.body.subscribed,
          snoozedUntil: req.body.snoozedUntil == null ? req.body.snoozedUntil : new Date(req.body.snoozedUntil),
          patch: parseDataPatch(req.body.data),
          topics: req.body.topics,
        }),
    );
    app.delete('/contacts/:id', { schema: { params: s.idParams } }, (req, reply) =>
      noContent(reply, service.deleteContact(ctx, projectOf(req).id, req.params.id)),
    );
  },
  { scope: { read: 'contacts:read', write: 'contacts:write' } },
);
