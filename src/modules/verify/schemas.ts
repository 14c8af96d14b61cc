import { z } from 'zod';
import { emailSchema } from '../../domain/email.js';

export const verifyBody = z.object({
  email: emailSchema,
});

export const verifyResultSchema = z.object({
  email: z.string(),
  valid: z.boolean().describe('Syntactically valid, has MX records and is not disposable'),
  isDisposable: z.boolean(),
  isAlias: z
    .boolean()
    .describe('Alias or forwarding service (Hide My Email, DuckDuckGo, SimpleLogin, addy.io, Firefox Relay, …)'),
  isTypo: z.boolean(),
  isPlusAddressed: z.boolean().describe('A plus sign in the local part'),
  isPersonalEmail: z.boolean().describe('Free mailbox provider'),
  domainExists: z.boolean().describe('NS records exist for the domain or its registrable domain'),
  hasWebsite: z.boolean().describe('A or AAAA records; informational'),
  hasMxRecords: z.boolean(),
  suggestedEmail: z.string().optional().describe('Present when a typo is detected'),
  reasons: z.array(z.string()).describe('One short explanation per negative finding'),
});

export const verifyResponse = z.object({
  success: z.literal(true),
  data: verifyResultSchema,
});
