import { projectOf } from '../../platform/http/auth.js';
import { moduleRoutes } from '../../platform/http/module-routes.js';
import { idParams } from '../../platform/http/params.js';
import * as s from './schemas.js';
import * as service from './service.js';

/** SpamAssassin's score of what a template or campaign would send (SPAMD_URL), listed with their resources. */
export const spamCheckRoutes = moduleRoutes(
  'Templates',
  async (app, ctx) => {
    app.get('/templates/spam-check', { schema: { response: { 200: s.spamCheckStatusSchema } } }, () =>
      service.spamCheckStatus(ctx),
    );
    app.post(
      '/templates/spam-check',
      { schema: { body: s.contentSpamCheckBody, response: { 200: s.spamCheckSchema } } },
      (req) => service.checkContent(ctx, projectOf(req).id, req.body),
    );
    app.post(
      '/templates/:id/spam-check',
      { schema: { params: idParams, body: s.savedSpamCheckBody, response: { 200: s.spamCheckSchema } } },
      (req) => service.checkTemplate(ctx, projectOf(req).id, req.params.id, req.body ?? {}),
    );
    app.post(
      '/campaigns/:id/spam-check',
      {
        config: { scope: 'campaigns' },
        schema: {
          tags: ['Campaigns'],
          params: idParams,
          body: s.savedSpamCheckBody,
          response: { 200: s.spamCheckSchema },
        },
      },
      (req) => service.checkCampaign(ctx, projectOf(req).id, req.params.id, req.body ?? {}),
    );
  },
  { scope: 'templates' },
);
