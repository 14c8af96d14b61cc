import { projectOf } from '../../platform/http/auth.js';
import { moduleRoutes } from '../../platform/http/module-routes.js';
import * as s from './schemas.js';
import * as service from './service.js';

/** Both answer the settings themselves, as `/campaign-settings` does. */
export const pacingRoutes = moduleRoutes(
  'Delivery settings',
  async (app, ctx) => {
    app.get('/delivery-settings', { schema: { response: { 200: s.deliverySettingsSchema } } }, (req) =>
      service.getDeliverySettings(ctx, projectOf(req).id),
    );
    // Pacing shapes the whole project's sending, as its domains do: admins change it.
    app.patch(
      '/delivery-settings',
      {
        config: { role: 'admin' },
        schema: { body: s.deliverySettingsPatch, response: { 200: s.deliverySettingsSchema } },
      },
      (req) => service.updateDeliverySettings(ctx, projectOf(req).id, req.body),
    );
  },
  { scope: 'admin' },
);
