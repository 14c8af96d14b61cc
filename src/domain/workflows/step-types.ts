/**
 * The step types of a workflow: one entry each, saying what config the step takes, which branches
 * leave it, whether it pauses or ends an execution, and what of the project its config names. The
 * graph rules, the API's schemas and "where is this used" all read this table; how a step runs is
 * its handler in modules/workflows/step-handlers.ts. Configs are strict: an unknown key is a
 * validation error, so a typo never silently changes what a step does.
 */
import { z } from 'zod';
import { filterReferences, workflowConditionSchema } from '../filters/index.js';
import { TIME_OF_DAY } from '../local-time.js';
import { WEBHOOK_METHODS, webhookHeaders, webhookUrl } from '../webhook-request.js';

export const BRANCHES = ['yes', 'no', 'arrived', 'timeout'] as const;
export type Branch = (typeof BRANCHES)[number];

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

/**
 * Waits until the time of day next comes round in the contact's zone (domain/local-time.ts); the
 * service's addition to the spec's DELAY (docs/api-rules.md#delay-until).
 */
const untilTimeOfDay = z
  .object({
    until: z
      .object({ time: z.string().regex(TIME_OF_DAY, { message: 'A time of day from 00:00 to 23:59, as HH:MM' }) })
      .strict(),
  })
  .strict();

/**
 * A duration or, with `until`, a time of day. A config is checked against the shape it means (told
 * by `until`), so its faults are that shape's, field by field, rather than "matches neither"; the
 * union after it states both shapes for the API's schema.
 */
const delayConfig = z
  .object({})
  .passthrough()
  .superRefine((config, ctx) => {
    const meant = 'until' in config ? untilTimeOfDay : duration;
    for (const issue of meant.safeParse(config).error?.issues ?? []) ctx.addIssue(issue);
  })
  .pipe(z.union([duration, untilTimeOfDay]));

const eventName = z.string().trim().min(1).max(255);
const MAX_BODY_BYTES = 64 * 1024;

/** What a step's config names: fields (`data.plan`), event names and template ids. */
export interface StepReferences {
  fields: string[];
  events: string[];
  templates: string[];
}

interface StepTypeSpec<C extends z.ZodTypeAny> {
  config: C;
  /** The branches its transitions carry; none for a step with one way out. */
  branches: readonly Branch[];
  /**
   * One transition may leave it without a branch, taken whichever way the step ended (the API names
   * branches only for CONDITION: docs/api-rules.md#branches). Otherwise each branch needs its own.
   */
  branchOptional?: true;
  /** It pauses an execution: a loop in the graph must go through one. */
  pauses?: true;
  /** It ends the execution: nothing may follow it. */
  ends?: true;
  references?(config: z.infer<C>): Partial<StepReferences>;
}

const stepType = <C extends z.ZodTypeAny>(spec: StepTypeSpec<C>) => spec;

export const STEP_TYPE_SPECS = {
  /** Sends the template to the contact; marketing rules apply. */
  SEND_EMAIL: stepType({
    /** `topicId`: a MARKETING email about this topic, skipped for contacts that do not receive it. */
    config: z.object({ templateId: z.string().uuid(), topicId: z.string().uuid().optional() }).strict(),
    branches: [],
    references: (c) => ({ templates: [c.templateId] }),
  }),
  /** Waits `amount` `unit`s, or until `until.time` (HH:MM) next comes round in the contact's time zone. */
  DELAY: stepType({ config: delayConfig, branches: [], pauses: true }),
  /** Waits for the contact's next event of that name (branch `arrived`) or until `timeout` (branch `timeout`). */
  WAIT_FOR_EVENT: stepType({
    config: z.object({ event: eventName, timeout: duration }).strict(),
    branches: ['arrived', 'timeout'],
    branchOptional: true,
    pauses: true,
    references: (c) => ({ events: [c.event] }),
  }),
  /** A filter tree (segment filters, plus `context.<key>`): branch `yes` or `no`. */
  CONDITION: stepType({
    config: z.object({ condition: workflowConditionSchema }).strict(),
    branches: ['yes', 'no'],
    references: (c) => filterReferences(c.condition),
  }),
  /** A signed HTTP request; retried on 5xx and timeouts. */
  WEBHOOK: stepType({
    config: z
      .object({
        url: webhookUrl,
        method: z.enum(WEBHOOK_METHODS).default('POST'),
        headers: webhookHeaders.default({}),
        /**
         * JSON sent as is; strings in it are Liquid templates over the contact and the context. Default: the execution.
         */
        body: z.unknown().optional(),
      })
      .strict()
      .refine((c) => c.body === undefined || JSON.stringify(c.body).length <= MAX_BODY_BYTES, {
        message: `At most ${MAX_BODY_BYTES} bytes of JSON`,
        path: ['body'],
      }),
    branches: [],
  }),
  /** Patches the contact under the `data` rules. */
  UPDATE_CONTACT: stepType({
    config: z
      .object({
        data: z.record(z.string().min(1).max(256), z.unknown()).optional(),
        subscribed: z.boolean().optional(),
        /** Topic id → receives it, for the topics named. */
        topics: z.record(z.string().uuid(), z.boolean()).optional(),
      })
      .strict()
      .refine((c) => c.data !== undefined || c.subscribed !== undefined || c.topics !== undefined, {
        message: 'Give data, subscribed, topics or any of them',
      }),
    branches: [],
    references: (c) => ({ fields: Object.keys(c.data ?? {}).map((k) => `data.${k}`) }),
  }),
  /** Ends the execution as `exited`. */
  EXIT: stepType({ config: z.object({}).strict().default({}), branches: [], ends: true }),
};

export type StepType = keyof typeof STEP_TYPE_SPECS;
export const STEP_TYPES = Object.keys(STEP_TYPE_SPECS) as [StepType, ...StepType[]];
export type StepConfig<T extends StepType> = z.infer<(typeof STEP_TYPE_SPECS)[T]['config']>;

/** The spec of a type, seen through the fields every type has. */
export const stepTypeSpec = (type: StepType): StepTypeSpec<z.ZodTypeAny> => STEP_TYPE_SPECS[type];

/** The step types that pause an execution. */
export const PAUSING_STEP_TYPES = STEP_TYPES.filter((t) => stepTypeSpec(t).pauses);

/** What a stored step's config names, each list empty when it names nothing of that kind. */
export function stepReferences(type: StepType, config: unknown): StepReferences {
  const found = stepTypeSpec(type).references?.(config) ?? {};
  return { fields: found.fields ?? [], events: found.events ?? [], templates: found.templates ?? [] };
}
