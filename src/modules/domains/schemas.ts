import { domainToASCII } from 'node:url';
import { z } from 'zod';
import { DMARC_POLICIES } from '../../domain/dmarc-record.js';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A sender domain as clients type it: trimmed, lower-cased, one trailing dot dropped, an
 * internationalised name turned into its ASCII (punycode) form. It must be a hostname of at least
 * two labels (≤ 63 characters each, ≤ 253 in all) whose last label is not numeric (no IP addresses).
 */
export const domainNameSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .transform((raw, ctx) => {
    const name = raw.endsWith('.') ? raw.slice(0, -1) : raw;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is for plain ASCII, control characters included
    const ascii = /^[\x00-\x7f]*$/.test(name) ? name : domainToASCII(name);
    const labels = ascii.split('.');
    const problem =
      ascii.length === 0 || ascii.length > 253
        ? 'Must be a domain name of at most 253 characters'
        : labels.length < 2
          ? 'Must be a full domain name such as example.com'
          : !labels.every((l) => LABEL.test(l))
            ? 'Each part of the domain must be 1 to 63 letters, digits or hyphens, not starting or ending with a hyphen'
            : /^\d+$/.test(labels[labels.length - 1]!)
              ? 'Must be a domain name, not an IP address'
              : null;
    if (problem) {
      ctx.addIssue({ code: z.ZodIssueCode.invalid_string, validation: 'regex', message: problem });
      return z.NEVER;
    }
    return ascii;
  });

export const createDomainBody = z.object({ domain: domainNameSchema });

export { idParams } from '../../platform/http/params.js';
export const projectIdParams = z.object({ projectId: z.string().uuid() });

export const recordStatusSchema = z.enum(['verified', 'pending', 'failed']);
export type RecordStatus = z.infer<typeof recordStatusSchema>;
export const recordPurposeSchema = z.enum(['dkim', 'verification', 'spf', 'return-path', 'dmarc']);
export type RecordPurpose = z.infer<typeof recordPurposeSchema>;
/** The outcome of the last DNS check of one record, stored per purpose in `domains.checks`. */
export type RecordCheck = { status: RecordStatus; found?: string[]; error?: string };

export const dmarcPolicySchema = z.enum(DMARC_POLICIES);

export const dmarcInForceSchema = z.object({
  policy: dmarcPolicySchema,
  subdomainPolicy: dmarcPolicySchema.nullable(),
  percent: z.number().int(),
  reportAddresses: z.array(z.string()),
  /** Whether its `rua` includes the address that reaches this service. */
  reportsHere: z.boolean(),
});

export const dnsRecordSchema = z.object({
  type: z.enum(['TXT', 'MX']),
  name: z.string(),
  value: z.string(),
  purpose: recordPurposeSchema,
  required: z.boolean(),
  status: recordStatusSchema,
  /** What the record does, in one sentence. */
  description: z.string(),
  /** The order in which to publish the records, from 1. */
  step: z.number().int().positive(),
  /** What to do about the record after its last check; null when nothing. */
  advice: z.string().nullable(),
  /** On the DMARC record: the DMARC record in force at the last check; null when none is (and on other records). */
  dmarc: dmarcInForceSchema.nullable(),
});

export const domainSchema = z.object({
  id: z.string().uuid(),
  domain: z.string(),
  verified: z.boolean(),
  verifiedAt: z.string().nullable(),
  checkedAt: z.string().nullable(),
  records: z.array(dnsRecordSchema),
  projectId: z.string().uuid(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Domain = z.infer<typeof domainSchema>;
export type DnsRecord = Domain['records'][number];

export const domainListSchema = z.array(domainSchema);
