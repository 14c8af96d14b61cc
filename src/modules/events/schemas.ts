import { z } from 'zod';
import { cursorPageSchema, cursorQuery, dirQuery, limitQuery } from '../../platform/http/pagination.js';
import { usageListsSchema } from '../../platform/usage.js';

export const eventNameSchema = z.string().trim().min(1).max(255);

export const dateTimeQuery = z
  .string()
  .datetime({ offset: true })
  .transform((s) => new Date(s));

export const listEventsQuery = z.object({
  limit: limitQuery,
  cursor: cursorQuery,
  name: eventNameSchema.optional(),
  since: dateTimeQuery.optional(),
  until: dateTimeQuery.optional(),
  dir: dirQuery,
});

export const eventSchema = z.object({
  id: z.string().uuid(),
  name: z.string(),
  contactId: z.string().uuid(),
  email: z.string(),
  data: z.record(z.unknown()),
  createdAt: z.string(),
});
export type TrackedEvent = z.infer<typeof eventSchema>;
export const eventPageSchema = cursorPageSchema(eventSchema);

export const statsQuery = z.object({ since: dateTimeQuery.optional(), until: dateTimeQuery.optional() });
export const statsResponse = z.object({
  since: z.string(),
  until: z.string(),
  total: z.number().int(),
  uniqueContacts: z.number().int(),
  byName: z.array(
    z.object({ name: z.string(), count: z.number().int(), uniqueContacts: z.number().int(), lastSeenAt: z.string() }),
  ),
});

export const contactIdParams = z.object({ contactId: z.string().uuid() });
export const eventNameParams = z.object({ eventName: eventNameSchema });
export const eventUsageResponse = usageListsSchema.extend({ event: z.string() });
