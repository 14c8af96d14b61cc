import { projectOf } from '../../platform/http/auth.js';
import { moduleRoutes } from '../../platform/http/module-routes.js';
import * as s from './schemas.js';
import * as service from './service.js';

/** The project's open and click tracking per email type, as `/delivery-settings` answers its pacing. */
export const trackingSettingsRoutes = moduleRoutes(
  'Tracking settings',
  async (app, ctx) => {
    app.get('/tracking-settings', { schema: { response: { 200: s.trackingSettingsSchema } } }, (req) =>
      service.getTrackingSettings(ctx, projectOf(req).id),
    );
    // What every email of the project carries, as its domains and pacing do: admins change it.
    app.patch(
      '/tracking-settings',
      {
        config: { role: 'admin' },
        schema: { body: s.trackingSettingsPatch, response: { 200: s.trackingSettingsSchema } },
      },
      (req) => service.updateTrackingSettings(ctx, projectOf(req).id, req.body),
    );
  },
  { scope: 'admin' },
);
