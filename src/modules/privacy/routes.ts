import { projectOf } from '../../platform/http/auth.js';
import { moduleRoutes, projectSettings } from '../../platform/http/module-routes.js';
import { eraseAnswer, getErase, requestErase } from './erase.js';
import { exportContact } from './export.js';
import * as s from './schemas.js';
import { getPrivacySettings, updatePrivacySettings } from './settings.js';

/**
 * A contact's export and erase, and the project's privacy settings (docs/decisions.md, "Export,
 * erase and retention"): with the secret key, a key with the contacts scopes, or a dashboard session.
 */
export const privacyRoutes = moduleRoutes(
  'Contacts',
  async (app, ctx) => {
    app.get(
      '/contacts/:id/export',
      {
        schema: {
          params: s.contactIdParams,
          description:
            'Everything held about the contact as one JSON document (the contact, its events, emails with their content, inbound mail, segments, campaigns, workflow executions, form signups, suppressions), streamed. Recorded in the audit log.',
        },
      },
      async (req, reply) => {
        const { stream } = await exportContact(ctx, projectOf(req).id, req.params.id);
        reply
          .type('application/json; charset=utf-8')
          .header('content-disposition', `attachment; filename="contact-${req.params.id}.json"`)
          .header('cache-control', 'no-store');
        return reply.send(stream);
      },
    );
    app.post(
      '/contacts/:id/erase',
      {
        schema: {
          params: s.contactIdParams,
          response: { 200: s.eraseAnswer, 202: s.eraseAnswer },
          description:
            'Erases the contact: at once its address, data and subscription; then, in a job, every row of its history. Aggregate counts stay. Asking again answers the same erase.',
        },
      },
      async (req, reply) => {
        const answer = eraseAnswer(await requestErase(ctx, projectOf(req).id, req.params.id));
        reply.status(answer.data.status === 'completed' ? 200 : 202);
        return answer;
      },
    );
    app.get(
      '/contacts/erase/:jobId',
      { schema: { params: s.eraseJobParams, response: { 200: s.eraseJobSchema } } },
      (req) => getErase(ctx, projectOf(req).id, req.params.jobId),
    );
  },
  { scope: { read: 'contacts:read', write: 'contacts:write' } },
);

export const privacySettingsRoutes = moduleRoutes(
  'Privacy settings',
  async (app, ctx) =>
    projectSettings(
      app,
      ctx,
      '/privacy-settings',
      { settings: s.privacySettingsSchema, patch: s.patchPrivacySettingsBody },
      { get: getPrivacySettings, update: updatePrivacySettings },
    ),
  { scope: 'admin' },
);
