import { z } from 'zod';
import { domainNameSchema } from '../domains/schemas.js';

// ---------------------------------------------------------------------------------------------
// The project's delivery pacing (GET and PATCH /delivery-settings).

const recipientDomainLimit = z
  .object({
    domain: domainNameSchema,
    /** Campaign messages per minute to this domain, shared by every worker; null: no rate limit. */
    perMinute: z.number().int().min(1).max(1_000_000).nullable(),
    /** Messages to this domain in flight at once in each worker; null: the project's default. */
    concurrency: z.number().int().min(1).max(1000).nullable(),
  })
  .strict();
export type RecipientDomainLimit = z.infer<typeof recipientDomainLimit>;

const warmup = z
  .object({
    domain: domainNameSchema,
    /** Campaign messages the sender domain may send on the schedule's first day. */
    startVolume: z.number().int().min(1).max(10_000_000),
    /** Each day allows this many times the day before. */
    dailyGrowth: z.number().min(1.01).max(10),
    /** The day's allowance that ends the warm-up: from then on the domain sends without a cap. */
    fullVolume: z.number().int().min(1).max(100_000_000),
    /** The first day of the schedule (UTC); today when left out. */
    startedOn: z.string().date(),
  })
  .strict();
export type Warmup = z.infer<typeof warmup>;

const uniqueDomains = <T extends { domain: string }>(list: T[], ctx: z.RefinementCtx) => {
  const seen = new Set<string>();
  list.forEach((item, i) => {
    if (seen.has(item.domain)) {
      ctx.addIssue({ code: 'custom', path: [i, 'domain'], message: `${item.domain} is listed twice` });
    }
    seen.add(item.domain);
  });
};

export const deliverySettingsSchema = z.object({
  /**
   * How this service's mail leaves: `relay`, through the SMTP relay in `SMTP_URL`; `capture`, with
   * no relay configured: every message is stored as sent in the outbox (`GET /emails/{id}/raw`),
   * from any sender address, and nothing leaves the machine.
   */
  mode: z.enum(['relay', 'capture']),
  /** Messages in flight at once to any one recipient domain without its own limit, in each worker; null: no limit. */
  defaultConcurrency: z.number().int().nullable(),
  recipientDomains: z.array(recipientDomainLimit),
  warmups: z.array(
    warmup.extend({
      /** Where the schedule stands today (UTC). */
      today: z.object({
        day: z.number().int(),
        /** Campaign messages allowed today; null once the warm-up is over. */
        cap: z.number().int().nullable(),
        sent: z.number().int(),
      }),
    }),
  ),
});
export type DeliverySettings = z.infer<typeof deliverySettingsSchema>;

/** A change: a list given replaces the whole list; absent fields stay; `defaultConcurrency: null` lifts the limit. */
export const deliverySettingsPatch = z
  .object({
    defaultConcurrency: z.number().int().min(1).max(1000).nullable().optional(),
    recipientDomains: z.array(recipientDomainLimit).max(500).superRefine(uniqueDomains).optional(),
    warmups: z
      .array(warmup.partial({ startedOn: true }))
      .max(100)
      .superRefine(uniqueDomains)
      .optional(),
  })
  .strict();
export type DeliverySettingsPatch = z.infer<typeof deliverySettingsPatch>;
