/** What a user may configure of an outgoing webhook request: where it goes, its method and headers. */
import { z } from 'zod';

const NO_LINE_BREAKS = /^[^\r\n]*$/;
/** Headers a webhook request may not set: the transport's own and the signature's. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
]);

export const WEBHOOK_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE', 'GET'] as const;

/** Where a webhook goes: an http or https URL. */
export const webhookUrl = z
  .string()
  .url()
  .max(2048)
  // An unparseable URL is already reported by url(); refinements still run on it.
  .refine((u) => !URL.canParse(u) || /^https?:$/.test(new URL(u).protocol), { message: 'Use an http or https URL' });

export const webhookHeaders = z
  .record(
    z
      .string()
      .min(1)
      .max(256)
      .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'Not a header name'),
    z.string().max(4096).regex(NO_LINE_BREAKS, 'Must not contain line breaks'),
  )
  .superRefine((headers, ctx) => {
    for (const name of Object.keys(headers)) {
      if (RESERVED_HEADERS.has(name.toLowerCase())) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `${name} is set by the service`,
          params: { code: 'reserved_header' },
        });
      }
    }
  });
