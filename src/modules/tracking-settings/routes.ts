import { moduleRoutes, projectSettings } from '../../platform/http/module-routes.js';
import * as s from './schemas.js';
import * as service from './service.js';

/** The project's open and click tracking per email type, as `/delivery-settings` answers its pacing. */
export const trackingSettingsRoutes = moduleRoutes(
  'Tracking settings',
  async (app, ctx) =>
    projectSettings(
      app,
      ctx,
      '/tracking-settings',
      { settings: s.trackingSettingsSchema, patch: s.trackingSettingsPatch },
      { get: service.getTrackingSettings, update: service.updateTrackingSettings },
    ),
  { scope: 'admin' },
);
