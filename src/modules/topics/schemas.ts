import { z } from 'zod';
import { cursorPageSchema, cursorQuery, limitQuery } from '../../platform/http/pagination.js';

export { idParams } from '../../platform/http/params.js';

const name = z.string().trim().min(1).max(100);
const description = z.string().trim().max(500);

export const createTopicBody = z.object({
  name,
  description: description.default(''),
  /** Shown in the preference center; an internal topic is set only by the API, imports and workflows. */
  public: z.boolean().default(true),
  /** What a contact that never chose receives. */
  defaultOn: z.boolean().default(false),
});
export type CreateTopicBody = z.infer<typeof createTopicBody>;

export const patchTopicBody = z.object({ name, description, public: z.boolean(), defaultOn: z.boolean() }).partial();
export type PatchTopicBody = z.infer<typeof patchTopicBody>;

export const topicSchema = z.object({
  id: z.string().uuid(),
  projectId: z.string().uuid(),
  name: z.string(),
  description: z.string(),
  public: z.boolean(),
  defaultOn: z.boolean(),
  /** Subscribed contacts that receive the topic (their choice, or the default). */
  subscribers: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Topic = z.infer<typeof topicSchema>;

export const listTopicsQuery = z.object({ limit: limitQuery, cursor: cursorQuery });
export const topicPageSchema = cursorPageSchema(topicSchema);

/**
 * A contact's topics as the API shows and takes them: topic id → receives it. Shown for every topic
 * of the project; a write names only the topics it changes.
 */
export const contactTopicsSchema = z.record(z.string().uuid(), z.boolean());
export type ContactTopics = z.infer<typeof contactTopicsSchema>;
