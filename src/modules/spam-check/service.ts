import { randomUUID } from 'node:crypto';
import { TemplateError } from '../../domain/render.js';
import { SpamdError, type SpamReport } from '../../domain/spamd-answer.js';
import { choiceOf, resolveTracking } from '../../domain/tracking.js';
import type { AppContext } from '../../platform/context.js';
import { AppError, validationError } from '../../platform/http/errors.js';
import { mailOptions } from '../../platform/mail/message.js';
import { messageBytes } from '../../platform/mail/transport.js';
import { MAX_MESSAGE_BYTES, spamReport } from '../../platform/spamd.js';
import { ContentLimitError } from '../../platform/untrusted/pool.js';
import { getCampaign } from '../campaigns/service.js';
import { getContact } from '../contacts/service.js';
import { type Content, composeEmail } from '../emails/compose.js';
import type { EmailContent } from '../templates/schemas.js';
import { getTemplate } from '../templates/service.js';
import { trackingFor } from '../tracking-settings/service.js';
import { type ContentSpamCheckBody, type SpamCheck, type SpamCheckStatus, WARN_ABOVE_POINTS } from './schemas.js';

/** The address of the sample contact a check renders for when it names none (as the preview does). */
const SAMPLE_EMAIL = 'preview@example.com';
/** A spamd that failed is asked again by the next check; a client may retry after this. */
const RETRY_AFTER_SECONDS = 30;

const HOW_TO_ENABLE =
  'The spam check is off. Whoever runs Postbox turns it on by setting SPAMD_URL to a SpamAssassin spamd ' +
  '(for example spamd://127.0.0.1:783; on Debian and Ubuntu, apt-get install spamd) and restarting it.';

interface Recipient {
  contactId?: string;
  data?: Record<string, unknown>;
}

/** GET /templates/spam-check: whether checks are made, and how to turn them on when not. */
export function spamCheckStatus(ctx: AppContext): SpamCheckStatus {
  return ctx.config.spamd
    ? { configured: true, warnAbove: WARN_ABOVE_POINTS, message: 'SpamAssassin scores content when asked.' }
    : { configured: false, warnAbove: WARN_ABOVE_POINTS, message: HOW_TO_ENABLE };
}

/** POST /templates/spam-check: content not yet saved, as it would be sent. */
export async function checkContent(
  ctx: AppContext,
  projectId: string,
  input: ContentSpamCheckBody,
): Promise<SpamCheck> {
  const content: Content = {
    tracking: resolveTracking(input.type, await trackingFor(ctx, projectId)),
    type: input.type,
    subject: input.subject,
    body: input.body,
    from: { email: input.from, name: input.fromName?.trim() || null },
    replyTo: input.replyTo ?? null,
    headers: {},
    attachmentSetId: null,
    templateId: null,
    campaignId: null,
  };
  return check(ctx, projectId, content, input);
}

/** POST /templates/{id}/spam-check. */
export async function checkTemplate(ctx: AppContext, projectId: string, id: string, recipient: Recipient) {
  const template = await getTemplate(ctx, projectId, id);
  const content = await savedContent(ctx, projectId, template, { templateId: id, campaignId: null });
  return check(ctx, projectId, content, recipient);
}

/** POST /campaigns/{id}/spam-check. */
export async function checkCampaign(ctx: AppContext, projectId: string, id: string, recipient: Recipient) {
  const campaign = await getCampaign(ctx, projectId, id);
  const content = await savedContent(ctx, projectId, campaign, { templateId: null, campaignId: id });
  return check(ctx, projectId, content, recipient);
}

/** Saved content as its sends would carry it, tracked as its own choice and the project's settings say. */
async function savedContent(
  ctx: AppContext,
  projectId: string,
  c: EmailContent,
  ids: { templateId: string | null; campaignId: string | null },
): Promise<Content> {
  return {
    tracking: resolveTracking(c.type, await trackingFor(ctx, projectId), choiceOf(c)),
    type: c.type,
    subject: c.subject,
    body: c.body,
    from: { email: c.from, name: c.fromName },
    replyTo: c.replyTo,
    headers: {},
    attachmentSetId: null,
    ...ids,
  };
}

/**
 * Renders the content for one recipient exactly as a send does (tracked links, open pixel, the
 * unsubscribe footer and headers of its type), builds the message a relay would receive, and asks
 * spamd for its report. Nothing is stored or sent. The message is not DKIM-signed: a spamd that
 * cannot look the key up in DNS scores a signature no differently from none.
 */
async function check(ctx: AppContext, projectId: string, content: Content, recipient: Recipient): Promise<SpamCheck> {
  const spamd = ctx.config.spamd;
  if (!spamd) return notConfigured();
  const contact = recipient.contactId
    ? await getContact(ctx, projectId, recipient.contactId)
    : { id: randomUUID(), email: SAMPLE_EMAIL, subscribed: true, data: recipient.data ?? {} };
  const bytes = await outgoingMessage(ctx, projectId, content, contact);
  if (bytes.length > MAX_MESSAGE_BYTES)
    throw new AppError(422, 'MESSAGE_TOO_LARGE', `The message is ${Math.ceil(bytes.length / 1024)} KB`, {
      details: { bytes: bytes.length, maxBytes: MAX_MESSAGE_BYTES },
      suggestion: `The spam check takes messages up to ${MAX_MESSAGE_BYTES / 1024} KB, as spamc does by default.`,
    });
  try {
    return verdict(await spamReport(spamd.target, bytes, { timeoutMs: spamd.timeoutMs }));
  } catch (err) {
    if (!(err instanceof SpamdError)) throw err;
    ctx.log.warn({ err: err.message }, 'spam check failed');
    throw new AppError(503, 'SPAM_CHECK_UNAVAILABLE', `The spam check is unavailable: ${err.message}`, {
      retryAfterSeconds: RETRY_AFTER_SECONDS,
      details: { retryAfterSeconds: RETRY_AFTER_SECONDS },
      suggestion: 'Check that spamd runs and lets this host connect (its --allowed-ips), then try again.',
    });
  }
}

async function outgoingMessage(
  ctx: AppContext,
  projectId: string,
  content: Content,
  contact: { id: string; email: string; subscribed: boolean; data: Record<string, unknown> },
): Promise<Buffer> {
  try {
    const email = await composeEmail(
      randomUUID(),
      projectId,
      content,
      { contact, name: null, transient: {} },
      { publicUrl: ctx.config.publicUrl, signer: ctx.links },
      ctx.templates.render.bind(ctx.templates),
    );
    const text = email.text ?? (await ctx.untrusted.text(email.html));
    const options = mailOptions(
      {
        messageId: email.messageId,
        from: { email: email.fromEmail, name: email.fromName },
        to: { email: email.toEmail, name: email.toName },
        replyTo: email.replyTo,
        subject: email.subject,
        html: email.html,
        text,
        headers: email.headers,
        attachments: [],
      },
      null,
    );
    return (await messageBytes(options)).bytes;
  } catch (err) {
    if (err instanceof TemplateError)
      throw validationError([{ field: err.part, message: err.message, code: 'invalid_template' }]);
    if (err instanceof ContentLimitError)
      throw validationError([
        {
          field: 'body',
          message: `The plain-text part could not be made from the HTML: ${err.reason === 'invalid' ? '' : 'the conversion '}${err.message}`,
          code: 'invalid_html',
        },
      ]);
    throw err;
  }
}

function verdict(report: SpamReport): SpamCheck {
  const warning = report.score > WARN_ABOVE_POINTS;
  const points = `${report.score} ${Math.abs(report.score) === 1 ? 'point' : 'points'}`;
  return {
    configured: true,
    ...report,
    warnAbove: WARN_ABOVE_POINTS,
    warning,
    message: warning
      ? `${points}: above ${WARN_ABOVE_POINTS}, some receivers may file it as spam. The rules below say what counts against it.`
      : `${points}: at or below ${WARN_ABOVE_POINTS}, unlikely to be filed as spam for its content.`,
  };
}

function notConfigured(): SpamCheck {
  return {
    configured: false,
    score: null,
    threshold: null,
    warnAbove: WARN_ABOVE_POINTS,
    warning: false,
    rules: [],
    message: HOW_TO_ENABLE,
  };
}
