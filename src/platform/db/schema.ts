import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  bigserial,
  boolean,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull().defaultNow();

export const projects = pgTable('projects', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  publicKeyHash: text('public_key_hash').notNull().unique(),
  secretKeyHash: text('secret_key_hash').notNull().unique(),
  disabled: boolean('disabled').notNull().default(false),
  /** The user who manages the project in the dashboard; null until one claims it. */
  ownerId: uuid('owner_id').references((): AnyPgColumn => users.id, { onDelete: 'set null' }),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const contacts = pgTable(
  'contacts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    subscribed: boolean('subscribed').notNull(),
    snoozedUntil: timestamp('snoozed_until', { withTimezone: true, mode: 'date', precision: 3 }),
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('contacts_project_email').on(t.projectId, t.email),
    index('contacts_project_created').on(t.projectId, t.createdAt, t.id),
    index('contacts_email_trgm').using('gin', sql`${t.email} gin_trgm_ops`),
  ],
);

/** The type of each custom `data` key, fixed per project the first time a value is seen. */
export const contactFields = pgTable(
  'contact_fields',
  {
    projectId: uuid('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    type: text('type').$type<'string' | 'number' | 'boolean' | 'date'>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.key] })],
);

export const events = pgTable(
  'events',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    // No key to projects: the contact's key already ties the event to its project, and each check
    // costs on the hottest insert.
    projectId: uuid('project_id').notNull(),
    contactId: uuid('contact_id').notNull().references(() => contacts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [
    index('events_project_created').on(t.projectId, t.createdAt, t.id),
    // Migration 0007 adds INCLUDE (contact_id), which the schema cannot declare: event filters
    // (`triggeredWithin` and the like) then read the contacts from the index alone.
    index('events_project_name_created').on(t.projectId, t.name, t.createdAt),
    index('events_contact_created').on(t.contactId, t.createdAt, t.id),
    // The activity of one campaign (`/activity?campaignId=`): its email events carry the campaign id.
    index('events_project_campaign_created')
      .on(t.projectId, sql`(${t.data}->>'campaignId')`, t.createdAt, t.id)
      .where(sql`(${t.data}->>'campaignId') is not null`),
  ],
);

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    projectId: uuid('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    statusCode: integer('status_code').notNull(),
    /** The `data` of the response, returned with the 409 of a retry so a client that timed out learns it. */
    response: jsonb('response'),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.key] }), index('idempotency_keys_expires').on(t.expiresAt)],
);

/**
 * Background jobs. A job row is written in the same transaction as the work it stands for;
 * a worker claims it with SKIP LOCKED and a lease, so a crashed worker's job runs again later.
 */
export const jobs = pgTable(
  'jobs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    queue: text('queue').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull().default({}),
    state: text('state').$type<'queued' | 'failed'>().notNull().default('queued'),
    runAt: timestamp('run_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull().defaultNow(),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull().default(10),
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date', precision: 3 }),
    singletonKey: text('singleton_key').unique(),
    lastError: text('last_error'),
    createdAt: createdAt(),
  },
  (t) => [index('jobs_due').on(t.queue, t.runAt).where(sql`state = 'queued'`)],
);

/** CSV imports and bulk subscribe/unsubscribe/delete requests, polled by clients. */
export const contactJobs = pgTable(
  'contact_jobs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<'import' | 'subscribe' | 'unsubscribe' | 'delete'>().notNull(),
    status: text('status').$type<'queued' | 'running' | 'completed' | 'failed'>().notNull().default('queued'),
    input: jsonb('input').$type<unknown>().notNull(),
    total: integer('total').notNull().default(0),
    processed: integer('processed').notNull().default(0),
    created: integer('created').notNull().default(0),
    updated: integer('updated').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    errors: jsonb('errors').$type<{ row?: number; id?: string; email?: string; message: string }[]>().notNull().default([]),
    createdAt: createdAt(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date', precision: 3 }),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date', precision: 3 }),
  },
  (t) => [index('contact_jobs_project').on(t.projectId, t.createdAt)],
);

/**
 * Events waiting to be handed to the in-process subscribers (workflow triggers, webhook
 * deliveries, daily activity counts).
 * Written in the statement that stores the event; a worker drains it, so a subscriber's failure
 * or slowness never touches the request that tracked the event.
 */
export const eventOutbox = pgTable('event_outbox', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  eventId: uuid('event_id').notNull(),
  attempts: integer('attempts').notNull().default(0),
  availableAt: timestamp('available_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull().defaultNow(),
  lastError: text('last_error'),
});

/** Values the instance generates once and every process shares, such as the key that signs links. */
export const instanceSecrets = pgTable('instance_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: createdAt(),
});

export type RecordCheck = { status: 'verified' | 'pending' | 'failed'; found?: string[]; error?: string };

/** A sender domain: its DKIM key pair, ownership token and the outcome of the last DNS check. */
export const domains = pgTable(
  'domains',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    domain: text('domain').notNull(),
    dkimSelector: text('dkim_selector').notNull(),
    dkimPrivateKey: text('dkim_private_key').notNull(),
    dkimPublicKey: text('dkim_public_key').notNull(),
    verificationToken: text('verification_token').notNull(),
    verified: boolean('verified').notNull().default(false),
    verifiedAt: timestamp('verified_at', { withTimezone: true, mode: 'date', precision: 3 }),
    checkedAt: timestamp('checked_at', { withTimezone: true, mode: 'date', precision: 3 }),
    checks: jsonb('checks').$type<Record<string, RecordCheck>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('domains_project_domain').on(t.projectId, t.domain)],
);

export type EmailType = 'TRANSACTIONAL' | 'MARKETING' | 'HEADLESS';

export const templates = pgTable(
  'templates',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    subject: text('subject').notNull(),
    body: text('body').notNull(),
    from: text('from_email').notNull(),
    fromName: text('from_name'),
    replyTo: text('reply_to'),
    type: text('type').$type<EmailType>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('templates_project_created').on(t.projectId, t.createdAt)],
);

/** `bounced`: the relay accepted it, then a delivery status notification reported it failed. */
export type EmailStatus = 'queued' | 'sent' | 'failed' | 'skipped' | 'bounced';
export type BounceType = 'hard' | 'soft';

export interface StoredAttachment {
  filename: string;
  /** base64, as the client sent it */
  content: string;
  contentType: string;
  contentId?: string;
  disposition: 'attachment' | 'inline';
}

/**
 * The attachments of one `/v1/send` request, stored once however many recipients it has; each of
 * its emails refers to them (`emails.attachment_set_id`).
 */
export const attachmentSets = pgTable('attachment_sets', {
  id: uuid('id').primaryKey(),
  projectId: uuid('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
  attachments: jsonb('attachments').$type<StoredAttachment[]>().notNull(),
  createdAt: createdAt(),
});

/**
 * One message to one recipient, rendered when it was accepted. The row is also its own delivery
 * job: the delivery engine claims due `queued` rows with SKIP LOCKED and a lease.
 */
export const emails = pgTable(
  'emails',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    contactId: uuid('contact_id').references(() => contacts.id, { onDelete: 'set null' }),
    templateId: uuid('template_id'),
    campaignId: uuid('campaign_id'),
    type: text('type').$type<EmailType>().notNull(),
    status: text('status').$type<EmailStatus>().notNull(),
    fromEmail: text('from_email').notNull(),
    fromName: text('from_name'),
    toEmail: text('to_email').notNull(),
    toName: text('to_name'),
    replyTo: text('reply_to'),
    subject: text('subject').notNull(),
    html: text('html').notNull(),
    headers: jsonb('headers').$type<Record<string, string>>().notNull().default({}),
    /** Attachments of emails stored before attachment sets existed; newer emails use `attachmentSetId`. */
    attachments: jsonb('attachments').$type<StoredAttachment[]>(),
    attachmentSetId: uuid('attachment_set_id').references(() => attachmentSets.id),
    messageId: text('message_id').notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull().defaultNow(),
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date', precision: 3 }),
    /** The process key of the worker sending it; its session's advisory lock tells whether that worker lives. */
    lockedBy: bigint('locked_by', { mode: 'bigint' }),
    lastError: text('last_error'),
    smtpResponse: text('smtp_response'),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date', precision: 3 }),
    failedAt: timestamp('failed_at', { withTimezone: true, mode: 'date', precision: 3 }),
    openedAt: timestamp('opened_at', { withTimezone: true, mode: 'date', precision: 3 }),
    clickedAt: timestamp('clicked_at', { withTimezone: true, mode: 'date', precision: 3 }),
    bouncedAt: timestamp('bounced_at', { withTimezone: true, mode: 'date', precision: 3 }),
    bounceType: text('bounce_type').$type<BounceType>(),
    complainedAt: timestamp('complained_at', { withTimezone: true, mode: 'date', precision: 3 }),
    openCount: integer('open_count').notNull().default(0),
    clickCount: integer('click_count').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('emails_project_created').on(t.projectId, t.createdAt, t.id),
    index('emails_contact').on(t.contactId),
    index('emails_due').on(t.nextAttemptAt).where(sql`status = 'queued'`),
    index('emails_campaign').on(t.campaignId).where(sql`campaign_id is not null`),
    // A running campaign's backlog and completion check, and cancelling its remaining sends.
    index('emails_campaign_queued').on(t.campaignId).where(sql`status = 'queued' and campaign_id is not null`),
    // Few emails have attachments: deleting a set (with its project) finds its emails here.
    index('emails_attachment_set').on(t.attachmentSetId).where(sql`attachment_set_id is not null`),
  ],
);

export type SegmentType = 'DYNAMIC' | 'STATIC';

export const segments = pgTable(
  'segments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** Names the segment's events, `segment.<slug>.entry` and `.exit`; unique in the project. */
    slug: text('slug').notNull(),
    description: text('description'),
    type: text('type').$type<SegmentType>().notNull(),
    condition: jsonb('condition').$type<unknown>(),
    trackMembership: boolean('track_membership').notNull().default(false),
    memberCount: integer('member_count').notNull().default(0),
    countedAt: timestamp('counted_at', { withTimezone: true, mode: 'date', precision: 3 }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('segments_project_slug').on(t.projectId, t.slug), index('segments_project_created').on(t.projectId, t.createdAt)],
);

/** Members of static segments, and the last computed members of tracked dynamic ones. */
export const segmentMembers = pgTable(
  'segment_members',
  {
    segmentId: uuid('segment_id').notNull().references(() => segments.id, { onDelete: 'cascade' }),
    contactId: uuid('contact_id').notNull().references(() => contacts.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.segmentId, t.contactId] }), index('segment_members_contact').on(t.contactId)],
);

export type CampaignStatus = 'DRAFT' | 'SCHEDULED' | 'SENDING' | 'SENT' | 'CANCELLED';
export type AudienceType = 'ALL' | 'SEGMENT' | 'FILTERED';

export const campaigns = pgTable(
  'campaigns',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    subject: text('subject').notNull(),
    body: text('body').notNull(),
    from: text('from_email').notNull(),
    fromName: text('from_name'),
    replyTo: text('reply_to'),
    type: text('type').$type<EmailType>().notNull(),
    status: text('status').$type<CampaignStatus>().notNull().default('DRAFT'),
    audienceType: text('audience_type').$type<AudienceType>().notNull(),
    audienceCondition: jsonb('audience_condition').$type<unknown>(),
    segmentId: uuid('segment_id').references(() => segments.id, { onDelete: 'set null' }),
    scheduledFor: timestamp('scheduled_for', { withTimezone: true, mode: 'date', precision: 3 }),
    totalRecipients: integer('total_recipients').notNull().default(0),
    sentCount: integer('sent_count').notNull().default(0),
    deliveredCount: integer('delivered_count').notNull().default(0),
    openedCount: integer('opened_count').notNull().default(0),
    clickedCount: integer('clicked_count').notNull().default(0),
    bouncedCount: integer('bounced_count').notNull().default(0),
    complainedCount: integer('complained_count').notNull().default(0),
    /** Recipients not sent to: unsubscribed or deleted since the audience was frozen, or cancelled. */
    skippedCount: integer('skipped_count').notNull().default(0),
    /** When the recipient list was written (sending started); null before. */
    frozenAt: timestamp('frozen_at', { withTimezone: true, mode: 'date', precision: 3 }),
    /** When every recipient had its email record; the campaign is SENT once those are all delivered or failed. */
    fannedOutAt: timestamp('fanned_out_at', { withTimezone: true, mode: 'date', precision: 3 }),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date', precision: 3 }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('campaigns_project_created').on(t.projectId, t.createdAt)],
);

/**
 * A campaign's audience, frozen when sending starts: one row per recipient, given its email when
 * the fan-out reaches it. A restart resumes from the rows still without an email.
 */
export const campaignRecipients = pgTable(
  'campaign_recipients',
  {
    campaignId: uuid('campaign_id').notNull().references(() => campaigns.id, { onDelete: 'cascade' }),
    contactId: uuid('contact_id').notNull(),
    emailId: uuid('email_id'),
  },
  (t) => [
    primaryKey({ columns: [t.campaignId, t.contactId] }),
    index('campaign_recipients_pending').on(t.campaignId, t.contactId).where(sql`email_id is null`),
  ],
);

export type WorkflowTriggerType = 'EVENT' | 'MANUAL';
export type StepType = 'SEND_EMAIL' | 'DELAY' | 'WAIT_FOR_EVENT' | 'CONDITION' | 'WEBHOOK' | 'UPDATE_CONTACT' | 'EXIT';
export type Branch = 'yes' | 'no' | 'arrived' | 'timeout';
export type ExecutionStatus = 'running' | 'waiting' | 'completed' | 'exited' | 'failed' | 'cancelled';

export const workflows = pgTable(
  'workflows',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    triggerType: text('trigger_type').$type<WorkflowTriggerType>().notNull().default('EVENT'),
    triggerConfig: jsonb('trigger_config').$type<Record<string, unknown>>().notNull().default({}),
    enabled: boolean('enabled').notNull().default(false),
    allowReentry: boolean('allow_reentry').notNull().default(false),
    /** Signs the payloads of the workflow's WEBHOOK steps. */
    signingSecret: text('signing_secret').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('workflows_project_created').on(t.projectId, t.createdAt)],
);

export const workflowSteps = pgTable(
  'workflow_steps',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workflowId: uuid('workflow_id').notNull().references(() => workflows.id, { onDelete: 'cascade' }),
    type: text('type').$type<StepType>().notNull(),
    name: text('name'),
    config: jsonb('config').$type<Record<string, unknown>>().notNull().default({}),
    /** Where the dashboard draws the step; the engine ignores it. */
    position: jsonb('position').$type<{ x: number; y: number }>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('workflow_steps_workflow').on(t.workflowId)],
);

export const workflowTransitions = pgTable(
  'workflow_transitions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workflowId: uuid('workflow_id').notNull().references(() => workflows.id, { onDelete: 'cascade' }),
    fromStepId: uuid('from_step_id').notNull().references(() => workflowSteps.id, { onDelete: 'cascade' }),
    toStepId: uuid('to_step_id').notNull().references(() => workflowSteps.id, { onDelete: 'cascade' }),
    branch: text('branch').$type<Branch>(),
    createdAt: createdAt(),
  },
  (t) => [
    index('workflow_transitions_workflow').on(t.workflowId),
    // One way out of a step per branch (or one, unbranched).
    uniqueIndex('workflow_transitions_from_branch').on(t.fromStepId, sql`coalesce(${t.branch}, '')`),
  ],
);

/**
 * One contact's run through a workflow. The row is also its own job: the engine claims executions
 * whose `next_run_at` has come (SKIP LOCKED, with a lease), runs their current step and writes the
 * outcome back only if `step_seq` is unchanged, so a step is never applied twice.
 */
export const workflowExecutions = pgTable(
  'workflow_executions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    workflowId: uuid('workflow_id').notNull().references(() => workflows.id, { onDelete: 'cascade' }),
    contactId: uuid('contact_id').notNull().references(() => contacts.id, { onDelete: 'cascade' }),
    status: text('status').$type<ExecutionStatus>().notNull(),
    context: jsonb('context').$type<Record<string, unknown>>().notNull().default({}),
    currentStepId: uuid('current_step_id'),
    /** Counts the steps taken; a claim's outcome is written only if it has not moved since. */
    stepSeq: integer('step_seq').notNull().default(0),
    /** When the current step is due (now, or the end of a delay or of a wait). */
    nextRunAt: timestamp('next_run_at', { withTimezone: true, mode: 'date', precision: 3 }),
    /** The event a WAIT_FOR_EVENT step waits for, and whether it arrived. */
    waitEvent: text('wait_event'),
    waitArrived: boolean('wait_arrived').notNull().default(false),
    waitStartedAt: timestamp('wait_started_at', { withTimezone: true, mode: 'date', precision: 3 }),
    attempts: integer('attempts').notNull().default(0),
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date', precision: 3 }),
    lastError: text('last_error'),
    /** 'once' when the workflow did not allow re-entry at the start: a contact starts it once. */
    entryKey: text('entry_key'),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date', precision: 3 }),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('workflow_executions_due').on(t.nextRunAt).where(sql`status in ('running', 'waiting')`),
    index('workflow_executions_waiting').on(t.contactId, t.waitEvent).where(sql`status = 'waiting' and wait_event is not null`),
    index('workflow_executions_workflow').on(t.workflowId, t.startedAt, t.id),
    index('workflow_executions_contact').on(t.contactId),
    // A project's executions under way (`/activity/upcoming`), whatever other projects have running.
    index('workflow_executions_project_active').on(t.projectId, t.workflowId, t.nextRunAt).where(sql`status in ('running', 'waiting')`),
    uniqueIndex('workflow_executions_once').on(t.workflowId, t.contactId).where(sql`entry_key = 'once'`),
  ],
);

/** The steps an execution has taken, in order. */
export const workflowExecutionSteps = pgTable(
  'workflow_execution_steps',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    executionId: uuid('execution_id').notNull().references(() => workflowExecutions.id, { onDelete: 'cascade' }),
    stepId: uuid('step_id').notNull(),
    stepType: text('step_type').$type<StepType>().notNull(),
    status: text('status').$type<'completed' | 'failed'>().notNull(),
    branch: text('branch').$type<Branch>(),
    output: jsonb('output').$type<Record<string, unknown>>(),
    error: text('error'),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
  },
  (t) => [index('workflow_execution_steps_execution').on(t.executionId, t.id)],
);

export type SuppressionReason = 'bounce' | 'complaint' | 'manual';

/**
 * Addresses a project no longer sends to: a hard bounce, a complaint, or added by hand. Every email
 * to one is stored as skipped until the address is removed.
 */
export const suppressions = pgTable(
  'suppressions',
  {
    projectId: uuid('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    /** Lowercased. */
    email: text('email').notNull(),
    reason: text('reason').$type<SuppressionReason>().notNull(),
    /** The email whose bounce or complaint put the address here. */
    emailId: uuid('email_id'),
    detail: text('detail'),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.email] }), index('suppressions_project_created').on(t.projectId, t.createdAt, t.email)],
);

/**
 * A project's subscription of a URL to event kinds: names, or prefixes ending in `*` (`email.*`,
 * `segment.*`, `*` for every event).
 */
export const webhooks = pgTable(
  'webhooks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    events: jsonb('events').$type<string[]>().notNull(),
    description: text('description'),
    /** `whsec_<base64>`: signs every delivery (Standard Webhooks). */
    secret: text('secret').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('webhooks_project').on(t.projectId)],
);

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event for one webhook: written with the event's dispatch, sent and retried by a job. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    /** Also the `webhook-id` header, the same on every attempt. */
    id: uuid('id').primaryKey().defaultRandom(),
    webhookId: uuid('webhook_id').notNull().references(() => webhooks.id, { onDelete: 'cascade' }),
    eventId: uuid('event_id').notNull(),
    eventName: text('event_name').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    status: text('status').$type<WebhookDeliveryStatus>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    responseStatus: integer('response_status'),
    lastError: text('last_error'),
    deliveredAt: timestamp('delivered_at', { withTimezone: true, mode: 'date', precision: 3 }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('webhook_deliveries_webhook_created').on(t.webhookId, t.createdAt, t.id)],
);

/**
 * Events per project, name and UTC day, kept by the event dispatcher as events are dispatched:
 * activity statistics and analytics read these instead of counting events.
 */
export const eventDailyCounts = pgTable(
  'event_daily_counts',
  {
    projectId: uuid('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    count: integer('count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.name, t.day] }), index('event_daily_counts_project_day').on(t.projectId, t.day)],
);

/** People who sign in to the dashboard; each owns projects. */
export const users = pgTable('users', {
  id: uuid('id').primaryKey().defaultRandom(),
  /** Lowercased. */
  email: text('email').notNull().unique(),
  /** `scrypt$<N>$<r>$<p>$<salt>$<hash>` (domain/passwords). */
  passwordHash: text('password_hash').notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/** Dashboard sessions ended by signing out before their token expires; purged once expired. */
export const revokedSessions = pgTable(
  'revoked_sessions',
  {
    /** The token's `jti`. */
    id: uuid('id').primaryKey(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
  },
  (t) => [index('revoked_sessions_expires').on(t.expiresAt)],
);

/** Mail received for a project's verified domains (replies), parsed and sanitized. */
export const inboundEmails = pgTable(
  'inbound_emails',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id').notNull().references(() => projects.id, { onDelete: 'cascade' }),
    /** The contact with the sender's address, when there is one. */
    contactId: uuid('contact_id').references(() => contacts.id, { onDelete: 'set null' }),
    fromEmail: text('from_email').notNull(),
    fromName: text('from_name'),
    to: jsonb('to').$type<string[]>().notNull(),
    subject: text('subject').notNull(),
    text: text('text'),
    /** Sanitized: no scripts, styles, event handlers or remote frames. */
    html: text('html'),
    messageId: text('message_id'),
    /** The email of this project the message replies to (In-Reply-To or References). */
    inReplyToEmailId: uuid('in_reply_to_email_id'),
    attachments: jsonb('attachments').$type<{ filename: string | null; contentType: string; size: number }[]>().notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
  },
  (t) => [index('inbound_emails_project_received').on(t.projectId, t.receivedAt, t.id)],
);
