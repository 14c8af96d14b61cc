import { z } from 'zod';
import { dmarcPolicySchema } from '../domains/schemas.js';

export { idParams } from '../../platform/http/params.js';

/** A UTC day, `2026-11-27`, from 1970 to 2999. */
const dayQuery = z
  .string()
  .regex(/^(19[7-9]\d|2\d{3})-\d{2}-\d{2}$/, 'Must be a day such as 2026-11-27, from 1970 on')
  .refine(
    (s) => {
      const d = new Date(`${s}T00:00:00Z`);
      return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s);
    },
    {
      message: 'Must be a day such as 2026-11-27',
    },
  );

/** Whole UTC days, both included; the default is the 30 days up to today. */
export const dmarcRangeQuery = z.object({ from: dayQuery.optional(), to: dayQuery.optional() });

const volume = {
  /** Messages reported. */
  messages: z.number().int(),
  /** Of those, the ones that passed DMARC: DKIM or SPF passed aligned with the From domain. */
  passed: z.number().int(),
};

export const dmarcSourceSchema = z.object({
  sourceIp: z.string(),
  /** The host name the IP address resolves back to, when the resolver answers. */
  reverseDns: z.string().nullable(),
  ...volume,
  failed: z.number().int(),
  dkimAligned: z.number().int(),
  spfAligned: z.number().int(),
  /** Messages the receivers quarantined or rejected. */
  quarantined: z.number().int(),
  rejected: z.number().int(),
  /** The organisations that reported this source. */
  reporters: z.array(z.string()),
});

export const dmarcSummarySchema = z.object({
  domainId: z.string().uuid(),
  domain: z.string(),
  from: z.string(),
  to: z.string(),
  reports: z.number().int(),
  ...volume,
  /** passed / messages; null when nothing was reported. */
  passRate: z.number().nullable(),
  /** The policy the domain published, as the newest report in the range saw it; null without reports. */
  policy: dmarcPolicySchema.nullable(),
  /** Per UTC day of the reports' periods, oldest first; days without reports are left out. */
  days: z.array(z.object({ day: z.string(), ...volume })),
  reporters: z.array(
    z.object({ orgName: z.string(), email: z.string().nullable(), reports: z.number().int(), ...volume }),
  ),
  /** The sources with failures first (most failed messages first), then the rest by volume; at most 50. */
  sources: z.array(dmarcSourceSchema),
  /** How many distinct source IPs reported in all. */
  sourceCount: z.number().int(),
  /** Whether to move the policy on, and why, in words. */
  recommendation: z.object({ policy: dmarcPolicySchema.nullable(), text: z.string() }),
});
export type DmarcSummary = z.infer<typeof dmarcSummarySchema>;
export type DmarcSource = z.infer<typeof dmarcSourceSchema>;
