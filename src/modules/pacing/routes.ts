import { moduleRoutes, projectSettings } from '../../platform/http/module-routes.js';
import * as s from './schemas.js';
import * as service from './service.js';

/** The project's pacing, as `/campaign-settings` answers its guardrails. */
export const pacingRoutes = moduleRoutes(
  'Delivery settings',
  async (app, ctx) =>
    projectSettings(
      app,
      ctx,
      '/delivery-settings',
      { settings: s.deliverySettingsSchema, patch: s.deliverySettingsPatch },
      { get: service.getDeliverySettings, update: service.updateDeliverySettings },
    ),
  { scope: 'admin' },
);
