import formbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SubscriberRef } from '../../domain/signed-links.js';
import { type Locale, localeFromAcceptLanguage, localeOf } from '../../domain/subscriber-i18n.js';
import type { AppContext } from '../../platform/context.js';
import type { Contact } from '../contacts/schemas.js';
import * as pages from './pages.js';
import * as service from './service.js';

/**
 * The public subscriber pages behind the links of every email (`subscriberUrls`):
 * /unsubscribe/:token, /subscribe/:token, /manage/:token. A GET only shows; a POST changes.
 * Everything answers HTML, errors included, and nothing is cached.
 */

const FORM_LIMIT = 16 * 1024;
const route = { config: { auth: 'none' as const }, schema: { hide: true } };

type TokenRequest = FastifyRequest<{ Params: { token: string } }>;

const PAGE_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** A public page, never cached or indexed; `policy` is its Content-Security-Policy. */
export function sendPage(reply: FastifyReply, status: number, html: string, policy = PAGE_POLICY) {
  return reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-robots-tag', 'noindex, nofollow')
    .header('content-security-policy', policy)
    .send(html);
}

const requestLocale = (request: FastifyRequest): Locale => localeFromAcceptLanguage(request.headers['accept-language']);

/** The small page for an invalid link (404), a request not understood (4xx) or a failure (5xx). */
export function sendMessagePage(request: FastifyRequest, reply: FastifyReply, status: number) {
  const kind = status === 404 ? 'notFound' : status >= 500 ? 'error' : 'badRequest';
  return sendPage(reply, status, pages.messagePage(requestLocale(request), kind));
}

const pageContact = (c: Contact): pages.PageContact => ({
  email: c.email,
  subscribed: c.subscribed,
  snoozedUntil: c.snoozedUntil ? new Date(c.snoozedUntil) : null,
});

/** Form fields of any body these pages accept; anything unreadable counts as no fields. */
function fieldsOf(body: unknown): Record<string, string> {
  if (!body || typeof body !== 'object') return {};
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) if (typeof value === 'string') fields[key] = value;
  return fields;
}

/**
 * The plain text fields of a multipart/form-data body: RFC 8058 lets a one-click unsubscribe
 * arrive in either form encoding.
 */
export function multipartFields(body: string, contentType: string): Record<string, string> {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const fields: Record<string, string> = {};
  if (!boundary) return fields;
  for (const part of body.split(`--${boundary[1] ?? boundary[2]}`)) {
    const split = part.indexOf('\r\n\r\n');
    if (split === -1) continue;
    const name = /content-disposition:[^\r\n]*\bname="([^"]*)"/i.exec(part.slice(0, split));
    if (name) fields[name[1]!] = part.slice(split + 4).replace(/\r\n$/, '');
  }
  return fields;
}

/** Also the RFC 8058 one-click POST, which mail providers send without any page being shown. */
const isOneClick = (fields: Record<string, string>) => fields['List-Unsubscribe']?.trim().toLowerCase() === 'one-click';

export async function subscriptionRoutes(fastify: FastifyInstance, { ctx }: { ctx: AppContext }) {
  // Form bodies are parsed in this plugin's scope only; the JSON API keeps refusing them.
  await fastify.register(formbody, { bodyLimit: FORM_LIMIT });
  fastify.addContentTypeParser(
    'multipart/form-data',
    { parseAs: 'string', bodyLimit: FORM_LIMIT },
    (request, body, done) => done(null, multipartFields(body as string, request.headers['content-type'] ?? '')),
  );
  // A POST is the intent; whatever else a client sends as a body is ignored, not refused.
  fastify.addContentTypeParser('*', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_request, _body, done) =>
    done(null, {}),
  );

  fastify.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, 'subscriber page failed');
    return sendMessagePage(request, reply, status);
  });

  /** Runs `handle` with the token's contact, or answers the invalid-link page. */
  const withContact =
    (
      handle: (
        request: TokenRequest,
        reply: FastifyReply,
        found: { ref: SubscriberRef; contact: Contact },
      ) => Promise<unknown>,
    ) =>
    async (request: TokenRequest, reply: FastifyReply) => {
      const found = await service.resolveToken(ctx, request.params.token);
      if (!found) return sendMessagePage(request, reply, 404);
      return handle(request, reply, found);
    };

  const scope = (prefix: string, register: (app: FastifyInstance) => void) =>
    fastify.register(
      async (app) => {
        app.setNotFoundHandler((request, reply) => sendMessagePage(request, reply, 404));
        register(app);
      },
      { prefix },
    );

  type Page = (locale: Locale, token: string, contact: pages.PageContact) => string;
  type TopicPage = (locale: Locale, token: string, contact: pages.PageContact, topic: pages.PageTopic) => string;
  /**
   * A confirmation page (GET) and the change it confirms (POST), with the page that says it is done.
   * The link of an email about a topic changes that topic only; a topic deleted since, the whole
   * subscription (a reader who asks to stop is stopped).
   */
  const subscriptionChange = (
    prefix: string,
    change: { subscribed: boolean; source: (request: TokenRequest) => service.LinkSource },
    whole: { confirm: Page; done: Page },
    oneTopic: { confirm: TopicPage; done: TopicPage },
  ) =>
    scope(prefix, (app) => {
      app.get(
        '/:token',
        route,
        withContact(async (request, reply, { ref, contact }) => {
          const locale = localeOf(contact.data);
          const topic = await service.topicOfLink(ctx, ref, contact);
          const html = topic
            ? oneTopic.confirm(locale, request.params.token, pageContact(contact), topic)
            : whole.confirm(locale, request.params.token, pageContact(contact));
          return sendPage(reply, 200, html);
        }),
      );
      app.post(
        '/:token',
        route,
        withContact(async (request, reply, { ref, contact }) => {
          const locale = localeOf(contact.data);
          const topic = await service.topicOfLink(ctx, ref, contact);
          const source = change.source(request);
          const updated = topic
            ? await service.setTopic(ctx, ref, topic.id, change.subscribed, source)
            : await service.setSubscribed(ctx, ref, change.subscribed, source);
          if (!updated) return sendMessagePage(request, reply, 404);
          const html = topic
            ? oneTopic.done(locale, request.params.token, pageContact(updated), { ...topic, on: change.subscribed })
            : whole.done(locale, request.params.token, pageContact(updated));
          return sendPage(reply, 200, html);
        }),
      );
    });

  await subscriptionChange(
    '/unsubscribe',
    {
      subscribed: false,
      source: (request) => (isOneClick(fieldsOf(request.body)) ? 'one_click' : 'unsubscribe_page'),
    },
    { confirm: pages.unsubscribeConfirmPage, done: pages.unsubscribedPage },
    { confirm: pages.unsubscribeTopicConfirmPage, done: pages.unsubscribedTopicPage },
  );
  await subscriptionChange(
    '/subscribe',
    { subscribed: true, source: () => 'subscribe_page' },
    { confirm: pages.subscribeConfirmPage, done: pages.subscribedPage },
    { confirm: pages.subscribeTopicConfirmPage, done: pages.subscribedTopicPage },
  );

  await scope('/manage', (app) => {
    app.get(
      '/:token',
      route,
      withContact(async (_request, reply, { ref, contact }) =>
        sendPage(
          reply,
          200,
          pages.managePage(localeOf(contact.data), pageContact(contact), {
            topics: await service.publicTopicsOf(ctx, ref, contact),
          }),
        ),
      ),
    );
    app.post(
      '/:token',
      route,
      withContact(async (request, reply, { ref, contact }) => {
        const fields = fieldsOf(request.body);
        let updated: Contact | null;
        if (fields.action === 'save') {
          // One submit: everything off, or the topics' switches and a break.
          const days = fields.days?.trim() ? pages.SNOOZE_DAYS.find((d) => String(d) === fields.days?.trim()) : null;
          if (days === undefined) return sendMessagePage(request, reply, 400);
          if (fields.all === 'off') updated = await service.setSubscribed(ctx, ref, false, 'manage_page');
          else {
            const changes: Record<string, boolean> = {};
            for (const t of await service.publicTopicsOf(ctx, ref, contact)) {
              const on = fields[`topic.${t.id}`] === 'on';
              if (on !== t.on) changes[t.id] = on;
            }
            updated = await service.savePreferences(ctx, ref, changes, days);
          }
        } else if (fields.action === 'unsubscribe')
          updated = await service.setSubscribed(ctx, ref, false, 'manage_page');
        else if (fields.action === 'subscribe') updated = await service.setSubscribed(ctx, ref, true, 'manage_page');
        else if (fields.action === 'snooze') {
          const days = pages.SNOOZE_DAYS.find((d) => String(d) === fields.days?.trim());
          if (!days) return sendMessagePage(request, reply, 400);
          updated = await service.snooze(ctx, ref, days);
        } else return sendMessagePage(request, reply, 400);
        if (!updated) return sendMessagePage(request, reply, 404);
        const topics = await service.publicTopicsOf(ctx, ref, updated);
        return sendPage(
          reply,
          200,
          pages.managePage(localeOf(contact.data), pageContact(updated), { saved: true, topics }),
        );
      }),
    );
  });
}
