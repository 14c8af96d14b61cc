import { z } from 'zod';
import { projectOf } from '../../platform/http/auth.js';
import { moduleRoutes } from '../../platform/http/module-routes.js';
import * as s from './schemas.js';
import * as service from './service.js';

export const activityRoutes = moduleRoutes(
  'Activity',
  (app, ctx) => {
    const analytics = ['Analytics'];

    app.get('/activity', { schema: { querystring: s.activityQuery, response: { 200: s.activityPageSchema } } }, (req) =>
      service.listActivity(ctx, projectOf(req).id, req.query),
    );
    app.get(
      '/activity/stats',
      { schema: { querystring: s.rangeQuery, response: { 200: s.activityStatsSchema } } },
      (req) => service.activityStats(ctx, projectOf(req).id, req.query),
    );
    app.get(
      '/activity/recent-count',
      { schema: { querystring: s.recentCountQuery, response: { 200: s.recentCountSchema } } },
      (req) => service.recentCount(ctx, projectOf(req).id, req.query),
    );
    app.get('/activity/types', { schema: { response: { 200: s.typesSchema } } }, (req) =>
      service.activityTypes(ctx, projectOf(req).id),
    );
    app.get('/activity/upcoming', { schema: { response: { 200: s.upcomingSchema } } }, (req) =>
      service.upcoming(ctx, projectOf(req).id),
    );

    app.get(
      '/analytics/timeseries',
      { schema: { tags: analytics, querystring: s.rangeQuery, response: { 200: s.timeseriesSchema } } },
      (req) => service.timeseries(ctx, projectOf(req).id, req.query),
    );
    app.get(
      '/analytics/top-campaigns',
      {
        schema: {
          tags: analytics,
          querystring: s.topCampaignsQuery,
          response: { 200: z.array(s.campaignSummarySchema) },
        },
      },
      (req) => service.topCampaigns(ctx, projectOf(req).id, req.query),
    );
    app.get(
      '/analytics/campaign-stats',
      { schema: { tags: analytics, querystring: s.rangeQuery, response: { 200: s.campaignStatsSchema } } },
      (req) => service.campaignStats(ctx, projectOf(req).id, req.query),
    );
    app.get(
      '/analytics/top-events',
      { schema: { tags: analytics, querystring: s.topEventsQuery, response: { 200: s.topEventsSchema } } },
      (req) => service.topEvents(ctx, projectOf(req).id, req.query),
    );
  },
  { scope: 'analytics' },
);
