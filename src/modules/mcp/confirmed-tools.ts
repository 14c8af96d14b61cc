import { z } from 'zod';
import type { FilterCondition } from '../../domain/filters/index.js';
import { AppError, validationError } from '../../platform/http/errors.js';
import * as campaignSchemas from '../campaigns/schemas.js';
import { audienceOf } from '../campaigns/sending.js';
import * as campaigns from '../campaigns/service.js';
import * as emailSchemas from '../emails/schemas.js';
import * as emails from '../emails/service.js';
import * as segments from '../segments/service.js';
import { previewContent } from '../templates/preview.js';
import * as templates from '../templates/service.js';
import { Confirmations } from './confirmation.js';
import { type Tool, type ToolCall, tool } from './tool.js';

const confirmationToken = z
  .string()
  .max(100)
  .optional()
  .describe('The token of the first call, which showed what would leave; omit it to see that first');

const confirmationUsed = () =>
  new AppError(409, 'CONFIRMATION_USED', 'This confirmation token was used already: the message was sent with it', {
    suggestion: 'To send the message again, call the tool without confirmationToken and confirm anew.',
  });

/** Every contact: `ALL` as a filter tree, to count it as the other audiences are counted. */
const EVERYONE: FilterCondition = { logic: 'AND', groups: [{ filters: [{ field: 'email', operator: 'exists' }] }] };

const NEXT_STEP =
  'Show this to the user; once they agree, call the tool again with the same arguments and confirmationToken.';

/** The first call of a confirmed tool: what would happen, and the token that lets the second call do it. */
function awaitingConfirmation(call: ToolCall, tool: string, args: unknown, preview: Record<string, unknown>) {
  const { token, expiresAt } = call.confirmations.issue(
    { projectId: call.projectId, tool, args },
    call.ctx.clock.now(),
  );
  return { confirmationRequired: true, ...preview, confirmationToken: token, expiresAt, nextStep: NEXT_STEP };
}

const addressOf = (a: emailSchemas.SendBody['to'] extends infer T ? (T extends unknown[] ? T[number] : T) : never) =>
  typeof a === 'string' ? a : a.name ? `${a.name} <${a.email}>` : a.email;

/** The rule of POST /v1/send that the object schema alone does not hold (content from a template or given). */
function checkedSend(args: z.output<typeof emailSchemas.sendFields>): emailSchemas.SendBody {
  const result = emailSchemas.sendBody.safeParse(args);
  if (result.success) return result.data;
  throw validationError(
    result.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message, code: i.code })),
  );
}

/** The tools that make mail leave: each runs only with the token its first call returned. */
export const SEND_TOOLS: Tool[] = [
  tool({
    name: 'emails_send',
    title: 'Send an email',
    description:
      'Sends an email to one or more addresses, as POST /v1/send does: inline subject and Liquid body, or a template by id, with `data` for its placeholders. The first call sends nothing: it returns the rendered message and a confirmationToken; the second call, with the same arguments and the token, sends it (once, however often the token is presented).',
    effect: 'send',
    scope: 'send',
    input: emailSchemas.sendFields.extend({ confirmationToken }),
    run: async (call, { confirmationToken: token, ...args }) => {
      const { ctx, projectId } = call;
      const body = checkedSend(args);
      if (token) {
        call.confirmations.check(token, { projectId, tool: 'emails_send', args }, ctx.clock.now());
        return emails
          .sendEmails(ctx, projectId, body, {
            idempotencyKey: Confirmations.idempotencyKey(token),
            method: 'POST',
            path: '/v1/send',
          })
          .catch((err) => {
            throw err instanceof AppError && err.code === 'IDEMPOTENCY_KEY_REUSED' ? confirmationUsed() : err;
          });
      }
      const template = body.template ? await templates.getTemplate(ctx, projectId, body.template) : undefined;
      const rendered = await previewContent(ctx, projectId, {
        subject: body.subject ?? template!.subject,
        body: body.body ?? template!.body,
        type: template?.type ?? 'TRANSACTIONAL',
        data: body.data,
      });
      const to = (Array.isArray(body.to) ? body.to : [body.to]).map(addressOf);
      const from = body.from ? addressOf(body.from) : template?.from;
      return awaitingConfirmation(call, 'emails_send', args, {
        message: {
          from,
          to,
          ...rendered,
          attachments: (body.attachments ?? []).map((a) => a.filename),
        },
      });
    },
  }),
  tool({
    name: 'campaigns_send',
    title: 'Send a campaign',
    description:
      'Sends a draft campaign now, or schedules it (scheduledFor, an ISO date-time). The first call sends nothing: it returns how many contacts its audience holds now and a confirmationToken; the second call, with the same arguments and the token, sends it. A change to the campaign in between voids the token.',
    effect: 'send',
    scope: 'campaigns',
    input: campaignSchemas.idParams.extend({
      scheduledFor: z.string().max(100).optional().describe('When to send (ISO 8601); omit to send now'),
      confirmationToken,
    }),
    run: async (call, { confirmationToken: token, ...args }) => {
      const { ctx, projectId } = call;
      const campaign = await campaigns.getCampaign(ctx, projectId, args.id);
      // The version is part of what is confirmed: an edit after the preview needs a new one.
      const confirmed = { ...args, version: campaign.updatedAt };
      if (token) {
        call.confirmations.check(token, { projectId, tool: 'campaigns_send', args: confirmed }, ctx.clock.now());
        const { campaign: sent, message } = await campaigns.sendCampaign(ctx, projectId, args.id, args.scheduledFor);
        return { campaign: sent, message };
      }
      const audience =
        audienceOf({
          audience_type: campaign.audienceType,
          segment_id: campaign.segmentId,
          audience_condition: campaign.audienceCondition as FilterCondition | null,
        }) ?? EVERYONE;
      const counts = await segments.countCondition(ctx, projectId, { condition: audience, preview: 0 });
      return awaitingConfirmation(call, 'campaigns_send', confirmed, {
        campaign: {
          id: campaign.id,
          name: campaign.name,
          subject: campaign.subject,
          from: campaign.from,
          type: campaign.type,
          status: campaign.status,
          audienceType: campaign.audienceType,
        },
        // A MARKETING campaign goes to the subscribed contacts of its audience only.
        recipients: campaign.type === 'MARKETING' ? counts.subscribed : counts.total,
        scheduledFor: args.scheduledFor ?? null,
      });
    },
  }),
];
