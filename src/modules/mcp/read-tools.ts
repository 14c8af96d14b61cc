import { z } from 'zod';
import { emailSchema } from '../../domain/email.js';
import { notFound } from '../../platform/http/errors.js';
import * as activity from '../activity/schemas.js';
import * as activityService from '../activity/service.js';
import * as campaignReport from '../campaigns/report.js';
import * as campaigns from '../campaigns/service.js';
import * as contactSchemas from '../contacts/schemas.js';
import * as contacts from '../contacts/service.js';
import * as domains from '../domains/service.js';
import * as segmentSchemas from '../segments/schemas.js';
import * as segments from '../segments/service.js';
import { previewContent } from '../templates/preview.js';
import * as templateSchemas from '../templates/schemas.js';
import * as templates from '../templates/service.js';
import { listExecutions } from '../workflows/executions.js';
import * as workflowSchemas from '../workflows/schemas.js';
import * as workflows from '../workflows/service.js';
import { type Tool, tool } from './tool.js';
import { invalidArguments } from './tool-errors.js';

const idInput = contactSchemas.idParams;

/** The tools that read: offered in read-only mode too. */
export const READ_TOOLS: Tool[] = [
  tool({
    name: 'contacts_find',
    title: 'Find contacts',
    description:
      'Lists contacts of the project, newest first, optionally searching the email address and filtering by subscription. Pass the returned cursor to get the next page.',
    effect: 'read',
    scope: 'contacts:read',
    // A JSON boolean here, where the query string of GET /contacts spells it "true" or "false".
    input: contactSchemas.listContactsQuery.extend({ subscribed: z.boolean().optional() }),
    run: ({ ctx, projectId }, q) => contacts.contactsPage(ctx, projectId, q),
  }),
  tool({
    name: 'contacts_get',
    title: 'Get a contact',
    description: 'One contact with its data, by id or by email address (give one of the two).',
    effect: 'read',
    scope: 'contacts:read',
    input: z.object({ id: idInput.shape.id.optional(), email: emailSchema.optional() }),
    run: async ({ ctx, projectId }, { id, email }) => {
      if (id) return contacts.getContact(ctx, projectId, id);
      if (!email) throw invalidArguments('id', 'Give the contact id or its email address');
      const [found] = await contacts.lookupContacts(ctx, projectId, [email]);
      if (!found?.contactId) throw notFound('Contact');
      return contacts.getContact(ctx, projectId, found.contactId);
    },
  }),
  tool({
    name: 'templates_list',
    title: 'List templates',
    description: 'The project’s templates, a numbered page at a time, optionally by type or searching the name.',
    effect: 'read',
    scope: 'templates',
    input: templateSchemas.listTemplatesQuery,
    run: ({ ctx, projectId }, q) => templates.listTemplates(ctx, { ...q, projectId }),
  }),
  tool({
    name: 'templates_get',
    title: 'Get a template',
    description: 'One template with its subject, Liquid body, sender and type.',
    effect: 'read',
    scope: 'templates',
    input: templateSchemas.idParams,
    run: ({ ctx, projectId }, { id }) => templates.getTemplate(ctx, projectId, id),
  }),
  tool({
    name: 'templates_preview',
    title: 'Preview content',
    description:
      'Renders a subject and a Liquid body (or a saved template, by templateId) as a contact of the project (contactId) or sample data would receive it: subject, HTML and text. Nothing is sent.',
    effect: 'read',
    scope: 'templates',
    input: templateSchemas.previewBody
      .partial({ subject: true, body: true })
      .extend({ templateId: templateSchemas.idParams.shape.id.optional() }),
    run: async ({ ctx, projectId }, { templateId, ...input }) => {
      const saved = templateId ? await templates.getTemplate(ctx, projectId, templateId) : undefined;
      const subject = input.subject ?? saved?.subject;
      const body = input.body ?? saved?.body;
      if (subject === undefined) throw invalidArguments('subject', 'Required without a templateId');
      if (body === undefined) throw invalidArguments('body', 'Required without a templateId');
      return previewContent(ctx, projectId, { ...input, subject, body, type: saved?.type ?? input.type });
    },
  }),
  tool({
    name: 'contacts_count',
    title: 'Count a filter tree',
    description:
      'Counts the contacts matching a filter tree (the condition of segments and filtered campaigns): all of them, the subscribed ones (whom a MARKETING campaign reaches), and optionally the first few.',
    effect: 'read',
    scope: 'contacts:read',
    input: segmentSchemas.countBody,
    run: ({ ctx, projectId }, body) => segments.countCondition(ctx, projectId, body),
  }),
  tool({
    name: 'segments_list',
    title: 'List segments',
    description: 'The project’s segments with their type, condition and member count.',
    effect: 'read',
    scope: 'contacts:read',
    input: z.object({}),
    run: async ({ ctx, projectId }) => ({ data: await segments.listSegments(ctx, projectId) }),
  }),
  tool({
    name: 'campaigns_report',
    title: 'Campaign report',
    description:
      'A campaign with its figures (sent, delivered, opened, clicked, bounced, complained, unsubscribed) and the progress of its sending.',
    effect: 'read',
    scope: 'campaigns',
    input: idInput,
    run: async ({ ctx, projectId }, { id }) => {
      const [campaign, stats, progress] = await Promise.all([
        campaigns.getCampaign(ctx, projectId, id),
        campaigns.campaignStats(ctx, projectId, id),
        campaignReport.campaignProgress(ctx, projectId, id),
      ]);
      return { campaign, stats, progress };
    },
  }),
  tool({
    name: 'workflows_list',
    title: 'List workflows',
    description: 'The project’s workflows with their trigger, status and running executions.',
    effect: 'read',
    scope: 'workflows',
    input: z.object({}),
    run: async ({ ctx, projectId }) => ({ data: await workflows.listWorkflows(ctx, projectId) }),
  }),
  tool({
    name: 'workflows_executions',
    title: 'Workflow executions',
    description: 'The executions of one workflow, newest first, optionally by status or contact.',
    effect: 'read',
    scope: 'workflows',
    input: workflowSchemas.listExecutionsQuery.merge(workflowSchemas.idParams),
    run: ({ ctx, projectId }, { id, ...q }) => listExecutions(ctx, projectId, id, q),
  }),
  tool({
    name: 'overview_figures',
    title: 'Overview figures',
    description:
      'The figures of the dashboard’s overview for a period (the last 30 days by default): emails sent, opened, clicked, bounced, complained, failed, and contacts.',
    effect: 'read',
    scope: 'analytics',
    input: activity.rangeQuery,
    run: ({ ctx, projectId }, range) => activityService.activityStats(ctx, projectId, range),
  }),
  tool({
    name: 'activity_list',
    title: 'Recent activity',
    description:
      'What happened in the project, newest first: sends, opens, clicks, bounces, events, by type, contact, campaign or period.',
    effect: 'read',
    scope: 'analytics',
    input: activity.activityQuery,
    run: ({ ctx, projectId }, q) => activityService.listActivity(ctx, projectId, q),
  }),
  tool({
    name: 'domains_status',
    title: 'Sender domains',
    description: 'The project’s sender domains with their verification status and the DNS records they need.',
    effect: 'read',
    scope: 'admin',
    input: z.object({}),
    run: async ({ ctx, projectId }) => ({ data: await domains.listDomains(ctx, projectId, projectId) }),
  }),
];
