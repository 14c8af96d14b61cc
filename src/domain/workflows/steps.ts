/**
 * The step types of a workflow and the config each one takes. Configs are strict: an unknown key is
 * a validation error, so a typo never silently changes what a step does.
 *
 *   SEND_EMAIL      { templateId }                      sends the template to the contact (marketing rules apply)
 *   DELAY           { amount, unit }                    waits; unit seconds | minutes | hours | days
 *   WAIT_FOR_EVENT  { event, timeout: { amount, unit } } waits for the contact's next event of that name:
 *                                                        branch `arrived`, or `timeout` when the time is up
 *   CONDITION       { condition }                       a filter tree (segment filters, plus `context.<key>`):
 *                                                        branch `yes` or `no`
 *   WEBHOOK         { url, method?, headers?, body? }   a signed HTTP request; retried on 5xx and timeouts
 *   UPDATE_CONTACT  { data?, subscribed? }              patches the contact under the `data` rules
 *   EXIT            {}                                  ends the execution as `exited`
 */
import { z } from 'zod';
import { workflowConditionSchema } from '../filters/index.js';

export const STEP_TYPES = ['SEND_EMAIL', 'DELAY', 'WAIT_FOR_EVENT', 'CONDITION', 'WEBHOOK', 'UPDATE_CONTACT', 'EXIT'] as const;
export type StepType = (typeof STEP_TYPES)[number];

export const DURATION_UNITS = ['seconds', 'minutes', 'hours', 'days'] as const;
export type DurationUnit = (typeof DURATION_UNITS)[number];
const UNIT_MS: Record<DurationUnit, number> = { seconds: 1_000, minutes: 60_000, hours: 3_600_000, days: 86_400_000 };
/** The longest delay or wait: a year. */
export const MAX_DURATION_MS = 366 * UNIT_MS.days;

export interface Duration {
  amount: number;
  unit: DurationUnit;
}

export function durationMs(d: Duration): number {
  return Math.round(d.amount * UNIT_MS[d.unit]);
}

const duration = z
  .object({ amount: z.number().positive().finite(), unit: z.enum(DURATION_UNITS) })
  .strict()
  .refine((d) => durationMs(d) <= MAX_DURATION_MS, { message: 'At most 366 days', path: ['amount'] });

const eventName = z.string().trim().min(1).max(255);
const NO_LINE_BREAKS = /^[^\r\n]*$/;
/** Headers a webhook request may not set: the transport's own and the signature's. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'webhook-id', 'webhook-timestamp', 'webhook-signature']);
const MAX_BODY_BYTES = 64 * 1024;

export const WEBHOOK_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE', 'GET'] as const;

/** Where a webhook goes: an http or https URL. */
export const webhookUrl = z
  .string()
  .url()
  .max(2048)
  // An unparseable URL is already reported by url(); refinements still run on it.
  .refine((u) => !URL.canParse(u) || /^https?:$/.test(new URL(u).protocol), { message: 'Use an http or https URL' });

const webhookHeaders = z
  .record(z.string().min(1).max(256).regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'Not a header name'), z.string().max(4096).regex(NO_LINE_BREAKS, 'Must not contain line breaks'))
  .superRefine((headers, ctx) => {
    for (const name of Object.keys(headers)) {
      if (RESERVED_HEADERS.has(name.toLowerCase())) {
        ctx.addIssue({ code: 'custom', path: [name], message: `${name} is set by the service`, params: { code: 'reserved_header' } });
      }
    }
  });

export const stepConfigSchemas = {
  SEND_EMAIL: z.object({ templateId: z.string().uuid() }).strict(),
  DELAY: duration,
  WAIT_FOR_EVENT: z.object({ event: eventName, timeout: duration }).strict(),
  CONDITION: z.object({ condition: workflowConditionSchema }).strict(),
  WEBHOOK: z
    .object({
      url: webhookUrl,
      method: z.enum(WEBHOOK_METHODS).default('POST'),
      headers: webhookHeaders.default({}),
      /** JSON sent as is; strings in it are Liquid templates over the contact and the context. Default: the execution. */
      body: z.unknown().optional(),
    })
    .strict()
    .refine((c) => c.body === undefined || JSON.stringify(c.body).length <= MAX_BODY_BYTES, { message: `At most ${MAX_BODY_BYTES} bytes of JSON`, path: ['body'] }),
  UPDATE_CONTACT: z
    .object({
      data: z.record(z.string().min(1).max(256), z.unknown()).optional(),
      subscribed: z.boolean().optional(),
    })
    .strict()
    .refine((c) => c.data !== undefined || c.subscribed !== undefined, { message: 'Give data, subscribed or both' }),
  EXIT: z.object({}).strict(),
} satisfies Record<StepType, z.ZodTypeAny>;

export type StepConfig<T extends StepType> = z.infer<(typeof stepConfigSchemas)[T]>;
export type AnyStepConfig = { [T in StepType]: StepConfig<T> }[StepType];

/** The branches a step's transitions must carry: none for the steps that have one way out. */
/**
 * A WAIT_FOR_EVENT may also have one transition without a branch, taken whichever way the wait
 * ended (the spec names branches only for CONDITION); `arrived`/`timeout` tell the two apart.
 */
export const BRANCH_OPTIONAL: ReadonlySet<StepType> = new Set(['WAIT_FOR_EVENT']);

export const STEP_BRANCHES: Record<StepType, readonly string[]> = {
  SEND_EMAIL: [],
  DELAY: [],
  WAIT_FOR_EVENT: ['arrived', 'timeout'],
  CONDITION: ['yes', 'no'],
  WEBHOOK: [],
  UPDATE_CONTACT: [],
  EXIT: [],
};

/** Steps that pause an execution; a loop in the graph must go through one. */
export const PAUSING_STEPS: ReadonlySet<StepType> = new Set(['DELAY', 'WAIT_FOR_EVENT']);
