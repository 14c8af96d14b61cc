import * as campaignSchemas from '../campaigns/schemas.js';
import * as campaigns from '../campaigns/service.js';
import * as contactSchemas from '../contacts/schemas.js';
import * as contacts from '../contacts/service.js';
import { trackerOf } from '../contacts/track.js';
import * as segmentSchemas from '../segments/schemas.js';
import * as segments from '../segments/service.js';
import * as templateSchemas from '../templates/schemas.js';
import * as templates from '../templates/service.js';
import { type Tool, tool } from './tool.js';
import { invalidArguments } from './tool-errors.js';

/** The tools that change the project's data without sending anything; absent in read-only mode. */
export const WRITE_TOOLS: Tool[] = [
  tool({
    name: 'contacts_upsert',
    title: 'Create or update a contact',
    description:
      'Creates the contact with this email address, or updates it: `data` is merged into its data (a null value removes a key), `subscribed` set when given.',
    effect: 'write',
    scope: 'contacts:write',
    input: contactSchemas.createContactBody,
    run: async ({ ctx, projectId }, body) => {
      const { contact, isNew } = await contacts.createContact(ctx, projectId, body);
      return { ...contact, _meta: { isNew, isUpdate: !isNew } };
    },
  }),
  tool({
    name: 'events_track',
    title: 'Track an event',
    description:
      'Records an event for a contact (created when new), as POST /v1/track does: workflows triggered by the event start.',
    effect: 'write',
    scope: 'track',
    input: contactSchemas.trackBody,
    run: ({ ctx, projectId }, body) => trackerOf(ctx).track(projectId, body, { method: 'POST', path: '/v1/track' }),
  }),
  tool({
    name: 'templates_create',
    title: 'Create a template',
    description: 'Saves a template: name, subject and Liquid body, sender, type (MARKETING by default).',
    effect: 'write',
    scope: 'templates',
    input: templateSchemas.createTemplateBody,
    run: ({ ctx, projectId, author }, body) => templates.createTemplate(ctx, projectId, body, author),
  }),
  tool({
    name: 'segments_create',
    title: 'Create a segment',
    description:
      'Saves a segment: DYNAMIC (the default) follows its filter tree `condition`; STATIC holds the contacts added to it.',
    effect: 'write',
    scope: 'contacts:write',
    input: segmentSchemas.createSegmentBody,
    run: ({ ctx, projectId }, body) => {
      if (body.type === 'DYNAMIC' && !body.condition)
        throw invalidArguments('condition', 'Required for a DYNAMIC segment');
      return segments.createSegment(ctx, projectId, body);
    },
  }),
  tool({
    name: 'campaigns_create',
    title: 'Draft a campaign',
    description:
      'Saves a campaign as a draft: content as for a template, and its audience (ALL, a SEGMENT by segmentId, or FILTERED by audienceCondition). Nothing is sent; campaigns_send sends it after confirmation.',
    effect: 'write',
    scope: 'campaigns',
    input: campaignSchemas.campaignBody,
    run: ({ ctx, projectId }, body) => campaigns.createCampaign(ctx, projectId, body),
  }),
];
