import { z } from 'zod';
import { eventPatternSchema } from '../../domain/webhook-events.js';
import { webhookUrl } from '../../domain/webhook-request.js';
import { offsetPageQuery, offsetPageSchema } from '../../platform/http/pagination.js';

const events = z
  .array(eventPatternSchema)
  .min(1)
  .max(50)
  .describe(
    'Event names, prefixes ending in .* (email.*, contact.*) or * for every event. Besides the names your ' +
      'clients track, the service emits email.sent, email.failed, email.bounced, email.complained, ' +
      'email.opened, email.clicked, email.received, contact.subscribed, contact.unsubscribed, ' +
      'contact.confirmed, contact.topics_changed, segment.<slug>.entry, segment.<slug>.exit, ' +
      'campaign.paused, campaign.resumed and campaign.completed',
  );
const description = z.string().max(500).nullable();

export const createWebhookBody = z.object({
  url: webhookUrl,
  events,
  description: description.optional(),
  enabled: z.boolean().default(true),
});

export const patchWebhookBody = z.object({
  url: webhookUrl.optional(),
  events: events.optional(),
  description: description.optional(),
  enabled: z.boolean().optional(),
});

export { idParams } from '../../platform/http/params.js';

export const webhookSchema = z.object({
  id: z.string().uuid(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  enabled: z.boolean(),
  /** Verifies the `webhook-signature` header of every delivery. */
  secret: z.string(),
  projectId: z.string().uuid(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Webhook = z.infer<typeof webhookSchema>;

export const deliveryStatusSchema = z.enum(['pending', 'delivered', 'failed']);
export type WebhookDeliveryStatus = z.infer<typeof deliveryStatusSchema>;

export const deliverySchema = z.object({
  id: z.string().uuid(),
  webhookId: z.string().uuid(),
  eventId: z.string().uuid(),
  eventName: z.string(),
  payload: z.record(z.unknown()),
  status: deliveryStatusSchema,
  attempts: z.number().int(),
  responseStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type WebhookDelivery = z.infer<typeof deliverySchema>;

export const listDeliveriesQuery = offsetPageQuery.extend({ status: deliveryStatusSchema.optional() });
export const deliveryPageSchema = offsetPageSchema(deliverySchema);
