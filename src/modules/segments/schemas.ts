import { z } from 'zod';
import { emailSchema } from '../../domain/email.js';
import { filterConditionSchema } from '../../domain/filters/index.js';
import { offsetPageQuery, offsetPageSchema } from '../../platform/http/pagination.js';
import { contactSchema } from '../contacts/schemas.js';

export const MAX_NAME = 100;
export const MAX_DESCRIPTION = 500;
/** Emails per members request, as for the contacts bulk operations. */
export const MAX_MEMBER_EMAILS = 1000;

const name = z.string().trim().min(1).max(MAX_NAME);
const description = z.string().max(MAX_DESCRIPTION);

export const segmentTypeSchema = z.enum(['DYNAMIC', 'STATIC']);
export type SegmentType = z.infer<typeof segmentTypeSchema>;

export const createSegmentBody = z.object({
  name,
  description: description.nullable().optional(),
  type: segmentTypeSchema.default('DYNAMIC'),
  /** Required for DYNAMIC (a missing or non-object condition is the legacy 400); ignored for STATIC. */
  condition: filterConditionSchema.optional(),
  trackMembership: z.boolean().default(false),
});
export type SegmentInput = z.infer<typeof createSegmentBody>;

export const patchSegmentBody = z.object({
  name: name.optional(),
  description: description.nullable().optional(),
  condition: filterConditionSchema.optional(),
  trackMembership: z.boolean().optional(),
});
export type SegmentPatch = z.infer<typeof patchSegmentBody>;

export { idParams } from '../../platform/http/params.js';

export const segmentSchema = z.object({
  id: z.string().uuid(),
  name: z.string(),
  /** Names the membership events: `segment.<slug>.entry` and `segment.<slug>.exit`. */
  slug: z.string(),
  description: z.string().nullable(),
  type: segmentTypeSchema,
  condition: z.unknown().nullable(),
  trackMembership: z.boolean(),
  memberCount: z.number().int(),
  /** When `memberCount` was last computed; null until the first count. */
  memberCountUpdatedAt: z.string().nullable(),
  projectId: z.string().uuid(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Segment = z.infer<typeof segmentSchema>;

export const membersQuery = offsetPageQuery;

export const memberPageSchema = offsetPageSchema(contactSchema);

const emails = z.array(emailSchema).min(1).max(MAX_MEMBER_EMAILS);

export const addMembersBody = z.object({
  emails,
  /** Create contacts for emails the project does not know yet (otherwise they are reported in `notFound`). */
  createMissing: z.boolean().default(false),
  /** The subscription of contacts created here; new contacts are subscribed by default. */
  subscribed: z.boolean().optional(),
});

export const removeMembersBody = z.object({ emails });

export const addMembersResponse = z.object({
  segmentId: z.string().uuid(),
  added: z.number().int(),
  alreadyMembers: z.number().int(),
  created: z.number().int(),
  notFound: z.array(z.string()),
  memberCount: z.number().int(),
});

export const removeMembersResponse = z.object({
  segmentId: z.string().uuid(),
  removed: z.number().int(),
  notMembers: z.array(z.string()),
  memberCount: z.number().int(),
});

export const computeResponse = z.object({
  segmentId: z.string().uuid(),
  entered: z.number().int(),
  exited: z.number().int(),
  memberCount: z.number().int(),
});

/** GET /contacts/{id}/segments: the segments a contact is in now. */
export const contactSegmentsResponse = z.object({
  data: z.array(segmentSchema.pick({ id: true, name: true, slug: true, type: true })),
});

export const estimateBody = z.object({ condition: filterConditionSchema });

/**
 * POST /segments/estimate: an exact count for small projects, a sampled estimate for large ones.
 * `subscribed` counts the matching contacts a MARKETING campaign to this condition would send to.
 */
export const estimateResponse = z.object({
  estimate: z.number().int(),
  /** Half-width of the 95 % interval around `estimate`; 0 when exact. */
  margin: z.number().int(),
  /** Of `estimate`, the subscribed contacts: the recipients of a MARKETING campaign. */
  subscribed: z.number().int(),
  /** Half-width of the 95 % interval around `subscribed`; 0 when exact. */
  subscribedMargin: z.number().int(),
  exact: z.boolean(),
  /** The project's contacts (estimated too when sampled). */
  contacts: z.number().int(),
  /** The project's contacts read to answer. */
  sampled: z.number().int(),
});

/** Matching contacts a count may show with it, for a preview beside the builder. */
export const MAX_COUNT_PREVIEW = 50;

export const countBody = z.object({
  condition: filterConditionSchema,
  /** How many of the matching contacts to return, newest first; 0 (the default) for the counts only. */
  preview: z.number().int().min(0).max(MAX_COUNT_PREVIEW).default(0),
});

/** POST /segments/count: exact counts of an unsaved condition, computed as a campaign computes its audience. */
export const countResponse = z.object({
  /** The contacts matching the condition: the recipients of a TRANSACTIONAL campaign to it. */
  total: z.number().int(),
  /** Of those, the subscribed ones: the recipients of a MARKETING campaign to it. */
  subscribed: z.number().int(),
  /** The first `preview` matching contacts, newest first. */
  contacts: z.array(contactSchema),
});
