import { z } from 'zod';
import { RULE_KEYS } from '../../domain/bulk-sender-rules.js';

export { idParams } from '../../platform/http/params.js';

export const ruleItemSchema = z.object({
  key: z.enum(RULE_KEYS),
  title: z.string(),
  status: z.enum(['pass', 'warn', 'fail']),
  detail: z.string(),
  action: z.string().nullable(),
});

export const domainHealthSchema = z.object({
  domainId: z.string().uuid(),
  domain: z.string(),
  /** When the domain's records were last checked; null before the first check. */
  checkedAt: z.string().nullable(),
  /** The start of the 7 days the rates are over. */
  since: z.string(),
  /** True when no item fails. */
  met: z.boolean(),
  items: z.array(ruleItemSchema),
  figures: z.object({
    sent: z.number().int(),
    complained: z.number().int(),
    hardBounced: z.number().int(),
    /** complained / sent, hardBounced / sent; null when nothing was sent. */
    complaintRate: z.number().nullable(),
    hardBounceRate: z.number().nullable(),
  }),
});
export type DomainHealth = z.infer<typeof domainHealthSchema>;
export type RuleItem = z.infer<typeof ruleItemSchema>;
