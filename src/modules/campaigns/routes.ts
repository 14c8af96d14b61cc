import { projectOf } from '../../platform/http/auth.js';
import { created, wrapped } from '../../platform/http/envelope.js';
import { moduleRoutes, projectSettings, resourceById } from '../../platform/http/module-routes.js';
import * as abTest from './ab-test.js';
import * as recipients from './recipients.js';
import * as report from './report.js';
import * as s from './schemas.js';
import { campaignSendTimes } from './send-times.js';
import * as service from './service.js';
import * as settings from './settings.js';

/**
 * Create, duplicate and the actions (send, unschedule, cancel, pause, resume, resend, test, pick a
 * test's winner) answer
 * `{ success, data }` (actions add a `message`, resend its count); reads and the replace answer
 * the campaign itself.
 */
export const campaignRoutes = moduleRoutes(
  'Campaigns',
  async (app, ctx) => {
    app.post(
      '/campaigns',
      { schema: { body: s.campaignBody, response: { 201: s.wrappedCampaign } } },
      async (req, reply) => created(reply, wrapped(await service.createCampaign(ctx, projectOf(req).id, req.body))),
    );
    app.get(
      '/campaigns',
      { schema: { querystring: s.listCampaignsQuery, response: { 200: s.campaignPageSchema } } },
      (req) => service.listCampaigns(ctx, { ...req.query, projectId: projectOf(req).id }),
    );
    app.post(
      '/campaigns/:id/duplicate',
      { schema: { params: s.idParams, response: { 201: s.wrappedCampaign } } },
      async (req, reply) =>
        created(reply, wrapped(await service.duplicateCampaign(ctx, projectOf(req).id, req.params.id))),
    );
    app.post(
      '/campaigns/:id/send',
      { schema: { params: s.idParams, body: s.sendBody, response: { 200: s.campaignAction } } },
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
      { schema: { params: s.idParams, response: { 200: s.campaignAction } } },
      async (req) => {
        const { campaign, message } = await service.cancelCampaign(ctx, projectOf(req).id, req.params.id);
        return wrapped(campaign, message);
      },
    );
    app.post(
      '/campaigns/:id/unschedule',
      { schema: { params: s.idParams, response: { 200: s.campaignAction } } },
      async (req) => {
        const { campaign, message } = await service.unscheduleCampaign(ctx, projectOf(req).id, req.params.id);
        return wrapped(campaign, message);
      },
    );
    app.post(
      '/campaigns/:id/pause',
      { schema: { params: s.idParams, response: { 200: s.campaignAction } } },
      async (req) => {
        const { campaign, message } = await service.pauseCampaign(ctx, projectOf(req).id, req.params.id);
        return wrapped(campaign, message);
      },
    );
    app.post(
      '/campaigns/:id/resume',
      { schema: { params: s.idParams, response: { 200: s.campaignAction } } },
      async (req) => {
        const { campaign, message } = await service.resumeCampaign(ctx, projectOf(req).id, req.params.id);
        return wrapped(campaign, message);
      },
    );
    app.post(
      '/campaigns/:id/resend',
      { schema: { params: s.idParams, response: { 200: s.resendAction } } },
      async (req) => {
        const { campaign, message, resent } = await recipients.resendCampaign(ctx, projectOf(req).id, req.params.id);
        return { ...wrapped(campaign, message), resent };
      },
    );
    app.get(
      '/campaigns/:id/recipients',
      { schema: { params: s.idParams, querystring: s.recipientsQuery, response: { 200: s.recipientPageSchema } } },
      (req) => recipients.listRecipients(ctx, projectOf(req).id, req.params.id, req.query),
    );
    projectSettings(
      app,
      ctx,
      '/campaign-settings',
      { settings: s.campaignSettingsSchema, patch: s.campaignSettingsPatch },
      { get: settings.getCampaignSettings, update: settings.updateCampaignSettings },
    );
    app.post(
      '/campaigns/:id/test',
      { schema: { params: s.idParams, body: s.testBody, response: { 200: s.testResponse } } },
      async (req) => {
        const sent = await service.sendTest(ctx, projectOf(req).id, req.params.id, req.body.email, req.body.variant);
        return wrapped(sent, `A test email is on its way to ${sent.to}`);
      },
    );
    app.get(
      '/campaigns/:id/ab-test',
      { schema: { params: s.idParams, response: { 200: s.abTestReportSchema } } },
      (req) => abTest.abTestReport(ctx, projectOf(req).id, req.params.id),
    );
    app.post(
      '/campaigns/:id/ab-test/winner',
      { schema: { params: s.idParams, body: s.winnerBody, response: { 200: s.campaignAction } } },
      async (req) => {
        const row = await abTest.chooseWinner(ctx, projectOf(req).id, req.params.id, req.body.variant);
        return wrapped(service.toCampaign(row), `Variant ${req.body.variant.toUpperCase()} goes to the rest`);
      },
    );
    app.get('/campaigns/:id/stats', { schema: { params: s.idParams, response: { 200: s.statsSchema } } }, (req) =>
      service.campaignStats(ctx, projectOf(req).id, req.params.id),
    );
    app.get('/campaigns/:id/progress', { schema: { params: s.idParams, response: { 200: s.progressSchema } } }, (req) =>
      report.campaignProgress(ctx, projectOf(req).id, req.params.id),
    );
    app.get(
      '/campaigns/:id/local-time',
      { schema: { params: s.idParams, response: { 200: s.sendTimesSchema } } },
      (req) => campaignSendTimes(ctx, projectOf(req).id, req.params.id),
    );
    app.get(
      '/campaigns/:id/engagement',
      { schema: { params: s.idParams, querystring: s.engagementQuery, response: { 200: s.engagementSchema } } },
      (req) => report.campaignEngagement(ctx, projectOf(req).id, req.params.id, req.query.interval),
    );
    app.get(
      '/campaigns/:id/links',
      { schema: { params: s.idParams, querystring: s.linksQuery, response: { 200: s.linkPageSchema } } },
      (req) => report.campaignLinks(ctx, projectOf(req).id, req.params.id, req.query),
    );
    resourceById(
      app,
      ctx,
      '/campaigns',
      { resource: s.campaignSchema, update: { method: 'PUT', body: s.campaignBody } },
      { get: service.getCampaign, update: service.replaceCampaign, delete: service.deleteCampaign },
    );
  },
  { scope: 'campaigns' },
);
