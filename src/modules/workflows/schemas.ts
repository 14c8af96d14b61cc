import { z } from 'zod';
import { emailSchema } from '../../domain/email.js';
import { BRANCHES, STEP_TYPE_SPECS, STEP_TYPES } from '../../domain/workflows/step-types.js';
import { cursorPageSchema, cursorQuery, limitQuery } from '../../platform/http/pagination.js';
import { dateTimeQuery, eventNameSchema } from '../events/schemas.js';

export const TRIGGER_TYPES = ['EVENT', 'MANUAL'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];
export const EXECUTION_STATUSES = ['running', 'waiting', 'completed', 'exited', 'failed', 'cancelled'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

const MAX_CONTEXT_BYTES = 64 * 1024;
const name = z.string().trim().min(1).max(255);
const description = z.string().max(2000);

/** `EVENT`: `{ event }`, the event name that starts an execution; `MANUAL`: `{}` (started only by the API). */
export const triggerConfigSchemas = {
  EVENT: z.object({ event: eventNameSchema }).strict(),
  MANUAL: z.object({}).strict(),
} as const;

export const createWorkflowBody = z.object({
  name,
  description: description.nullable().optional(),
  triggerConfig: triggerConfigSchemas.EVENT.optional(),
  allowReentry: z.boolean().default(false),
});

export const patchWorkflowBody = z.object({
  name: name.optional(),
  description: description.nullable().optional(),
  triggerType: z.enum(TRIGGER_TYPES).optional(),
  /** Checked against the trigger type the workflow will have. */
  triggerConfig: z.record(z.unknown()).optional(),
  enabled: z.boolean().optional(),
  allowReentry: z.boolean().optional(),
});

const position = z.object({ x: z.number().finite(), y: z.number().finite() }).strict();

export const createStepBody = z.discriminatedUnion(
  'type',
  STEP_TYPES.map((type) =>
    z.object({
      type: z.literal(type),
      name: z.string().max(255).nullable().optional(),
      config: STEP_TYPE_SPECS[type].config,
      position: position.nullable().optional(),
    }),
  ) as unknown as [z.ZodDiscriminatedUnionOption<'type'>, ...z.ZodDiscriminatedUnionOption<'type'>[]],
);

export const patchStepBody = z.object({
  name: z.string().max(255).nullable().optional(),
  /** Checked against the step's type. */
  config: z.record(z.unknown()).optional(),
  position: position.nullable().optional(),
});

export const createTransitionBody = z.object({
  fromStepId: z.string().uuid(),
  toStepId: z.string().uuid(),
  /** `yes`/`no` out of a CONDITION step, `arrived`/`timeout` out of a WAIT_FOR_EVENT step; omitted otherwise. */
  branch: z.enum(BRANCHES).nullable().optional(),
});

export const startExecutionBody = z
  .object({
    contactId: z.string().uuid().optional(),
    email: emailSchema.optional(),
    context: z
      .record(z.unknown())
      .refine((c) => JSON.stringify(c).length <= MAX_CONTEXT_BYTES, {
        message: `At most ${MAX_CONTEXT_BYTES} bytes of JSON`,
      })
      .default({}),
  })
  .refine((b) => b.contactId !== undefined || b.email !== undefined, {
    message: 'Give contactId or email',
    path: ['contactId'],
  });

export { idParams } from '../../platform/http/params.js';
export const stepParams = z.object({ id: z.string().uuid(), stepId: z.string().uuid() });
export const transitionParams = z.object({ id: z.string().uuid(), transitionId: z.string().uuid() });
export const executionParams = z.object({ id: z.string().uuid(), executionId: z.string().uuid() });
export const deleteStepQuery = z.object({
  splice: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
});

export const listExecutionsQuery = z.object({
  status: z.enum(EXECUTION_STATUSES).optional(),
  /** Only the executions of the contact with this id, or with this address. */
  contactId: z.string().uuid().optional(),
  email: emailSchema.optional(),
  limit: limitQuery,
  cursor: cursorQuery,
});

export const stepSchema = z.object({
  id: z.string().uuid(),
  workflowId: z.string().uuid(),
  type: z.enum(STEP_TYPES),
  name: z.string().nullable(),
  config: z.record(z.unknown()),
  position: z.object({ x: z.number(), y: z.number() }).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const transitionSchema = z.object({
  id: z.string().uuid(),
  workflowId: z.string().uuid(),
  fromStepId: z.string().uuid(),
  toStepId: z.string().uuid(),
  branch: z.enum(BRANCHES).nullable(),
  createdAt: z.string(),
});

export const workflowSchema = z.object({
  id: z.string().uuid(),
  name: z.string(),
  description: z.string().nullable(),
  triggerType: z.enum(TRIGGER_TYPES),
  triggerConfig: z.record(z.unknown()),
  enabled: z.boolean(),
  allowReentry: z.boolean(),
  /** The `whsec_` secret that signs this workflow's WEBHOOK requests. */
  signingSecret: z.string(),
  projectId: z.string().uuid(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const workflowListItemSchema = workflowSchema.extend({
  /** Executions running or waiting now. */
  activeExecutions: z.number().int(),
});

export const workflowDetailSchema = workflowSchema.extend({
  steps: z.array(stepSchema),
  transitions: z.array(transitionSchema),
  /** Executions by status. */
  executions: z.record(z.number().int()),
});

export const executionSchema = z.object({
  id: z.string().uuid(),
  workflowId: z.string().uuid(),
  contactId: z.string().uuid(),
  /** The contact's address. */
  email: z.string(),
  status: z.enum(EXECUTION_STATUSES),
  context: z.record(z.unknown()),
  currentStepId: z.string().uuid().nullable(),
  /** What a waiting execution waits for: an event (with its timeout) or the end of a delay. */
  waitingFor: z.object({ event: z.string().nullable(), until: z.string() }).nullable(),
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  updatedAt: z.string(),
});

export const historyEntrySchema = z.object({
  stepId: z.string().uuid(),
  type: z.enum(STEP_TYPES),
  status: z.enum(['completed', 'failed']),
  branch: z.enum(BRANCHES).nullable(),
  output: z.record(z.unknown()).nullable(),
  error: z.string().nullable(),
  startedAt: z.string(),
  finishedAt: z.string(),
});

export const executionDetailSchema = executionSchema.extend({ steps: z.array(historyEntrySchema) });
export const executionPageSchema = cursorPageSchema(executionSchema);

/** The range of `GET /workflows/{id}/stats`: by default the 30 days up to now. */
export const stepStatsQuery = z.object({ since: dateTimeQuery.optional(), until: dateTimeQuery.optional() });

export const stepStatsSchema = z.object({
  since: z.string(),
  until: z.string(),
  steps: z.array(
    z.object({
      stepId: z.string().uuid(),
      type: z.enum(STEP_TYPES),
      /** Executions running or waiting at this step now, whatever the range. */
      active: z.number().int(),
      /**
       * SEND_EMAIL steps only (null for the others): emails the step made in the range that were
       * sent, and of those, opened and clicked (at any time since).
       */
      sent: z.number().int().nullable(),
      opened: z.number().int().nullable(),
      clicked: z.number().int().nullable(),
    }),
  ),
});

export const fieldsQuery = z.object({ event: eventNameSchema.optional() });

export const fieldsResponse = z.object({
  fields: z.array(z.object({ field: z.string(), type: z.string(), isCustom: z.boolean() })),
  events: z.array(z.string()),
  /** The trigger event's data, as `context.event.data.<key>`: empty without `event`. */
  context: z.array(z.object({ field: z.string(), type: z.string() })),
});

export type Workflow = z.infer<typeof workflowSchema>;
export type WorkflowListItem = z.infer<typeof workflowListItemSchema>;
export type StepStats = z.infer<typeof stepStatsSchema>;
export type WorkflowDetail = z.infer<typeof workflowDetailSchema>;
export type WorkflowStep = z.infer<typeof stepSchema>;
export type WorkflowTransition = z.infer<typeof transitionSchema>;
export type WorkflowFields = z.infer<typeof fieldsResponse>;
export type Execution = z.infer<typeof executionSchema>;
export type ExecutionDetail = z.infer<typeof executionDetailSchema>;
export type HistoryEntry = z.infer<typeof historyEntrySchema>;
