import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Contact, TrackedEvent } from '../../src/api.js';
import { uniqueAddresses } from '../support/sending.js';
import { type Client, expectBody, startTestServer, type TestProject, type TestServer } from '../support/server.js';

let server: TestServer;
let p: TestProject;

beforeAll(async () => {
  server = await startTestServer();
  p = await server.project('subscriber-pages');
});
afterAll(() => server?.stop());

let seq = 0;
const uniqueEmail = uniqueAddresses('pages.test');

async function createContact(api: Client, body: Record<string, unknown> = {}): Promise<Contact> {
  return expectBody(api.post('/contacts', { email: uniqueEmail('c'), ...body }), 201);
}

async function getContact(id: string): Promise<Contact> {
  return expectBody(p.api.get(`/contacts/${id}`));
}

async function eventsOf(contactId: string, name: string) {
  const res = await p.api.get(`/events/contact/${contactId}?limit=100&name=${encodeURIComponent(name)}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as TrackedEvent[];
}

/** The contact has exactly one event of this name, with (at least) this data. */
async function expectOneEvent(contactId: string, name: string, data: Record<string, unknown>) {
  const events = await eventsOf(contactId, name);
  expect(events).toHaveLength(1);
  expect(events[0]!.data).toMatchObject(data);
}

const tokenOf = (contactId: string, projectId = p.id) =>
  server.service.ctx.links.subscriberToken({ projectId, contactId });

/** A subscriber page as a browser gets it: HTML, not an API response. */
interface Page {
  status: number;
  headers: Headers;
  html: string;
}

async function page(
  method: 'GET' | 'POST',
  path: string,
  form?: Record<string, string> | string,
  headers: Record<string, string> = {},
): Promise<Page> {
  const init: RequestInit = { method, headers: { ...headers }, redirect: 'manual' };
  if (form !== undefined) {
    init.body = typeof form === 'string' ? form : new URLSearchParams(form).toString();
    (init.headers as Record<string, string>)['content-type'] ??= 'application/x-www-form-urlencoded';
  }
  const res = await fetch(server.url + path, init);
  return { status: res.status, headers: res.headers, html: await res.text() };
}

function expectHtml(res: Page, status: number, lang?: string) {
  expect(res.status, res.html).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^text\/html; charset=utf-8/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.html).toMatch(/^<!doctype html>/i);
  expect(res.html).not.toMatch(/<script|<link |src=/i);
  if (lang) expect(res.html).toContain(`<html lang="${lang}">`);
}

describe('GET pages', () => {
  it('show confirmation pages in English by default, and change nothing', async () => {
    const c = await createContact(p.api);
    const token = tokenOf(c.id);
    const unsub = await page('GET', `/unsubscribe/${token}`);
    expectHtml(unsub, 200, 'en');
    expect(unsub.html).toContain('Unsubscribe?');
    expect(unsub.html).toContain(c.email);
    expect(unsub.html).toMatch(/<form method="post">.*<button type="submit">Unsubscribe<\/button><\/form>/);

    const manage = await page('GET', `/manage/${token}`);
    expectHtml(manage, 200, 'en');
    expect(manage.html).toContain('Email preferences');
    expect(manage.html).toContain(c.email);
    expect(manage.html).toContain('Subscribed');
    for (const days of ['7', '30', '90']) expect(manage.html).toContain(`name="days" value="${days}"`);

    const sub = await page('GET', `/subscribe/${token}`);
    expectHtml(sub, 200, 'en');
    expect(sub.html).toContain('You are subscribed');

    // HEAD (what link scanners send) is as harmless as GET.
    expect((await fetch(`${server.url}/unsubscribe/${token}`, { method: 'HEAD' })).status).toBe(200);

    const after = await getContact(c.id);
    expect(after.subscribed).toBe(true);
    expect(after.snoozedUntil).toBeNull();
    expect(await eventsOf(c.id, 'contact.unsubscribed')).toHaveLength(0);
  });

  it.each([
    ['de', 'de', 'Abmelden?', 'E-Mail-Einstellungen'],
    ['de-AT', 'de', 'Abmelden?', 'E-Mail-Einstellungen'],
    ['fr-CA', 'fr', 'Se désabonner\u00a0?', 'Préférences e-mail'],
    ['es', 'es', '¿Darse de baja?', 'Preferencias de correo'],
    ['pt_BR', 'pt', 'Cancelar inscrição?', 'Preferências de e-mail'],
    ['tlh', 'en', 'Unsubscribe?', 'Email preferences'],
  ])('speak the language of data.locale %s', async (locale, lang, question, manageTitle) => {
    const c = await createContact(p.api, { data: { locale } });
    const token = tokenOf(c.id);
    const unsub = await page('GET', `/unsubscribe/${token}`);
    expectHtml(unsub, 200, lang);
    expect(unsub.html).toContain(`<title>${question}</title>`);
    const manage = await page('GET', `/manage/${token}`);
    expectHtml(manage, 200, lang);
    expect(manage.html).toContain(`<title>${manageTitle}</title>`);
  });
});

describe('unsubscribe', () => {
  it('POST unsubscribes once, emits contact.unsubscribed, and links to resubscribe', async () => {
    const c = await createContact(p.api, { data: { locale: 'de' } });
    const token = tokenOf(c.id);
    const res = await page('POST', `/unsubscribe/${token}`, { confirm: 'yes' });
    expectHtml(res, 200, 'de');
    expect(res.html).toContain('Sie wurden abgemeldet');
    expect(res.html).toContain(`href="../subscribe/${token}"`);
    expect((await getContact(c.id)).subscribed).toBe(false);

    const events = await p.api.get(`/events?name=contact.unsubscribed&limit=100`);
    expect(events.status).toBe(200);
    const mine = (events.body.data as { contactId: string; data: Record<string, unknown> }[]).filter(
      (e) => e.contactId === c.id,
    );
    expect(mine).toHaveLength(1);
    expect(mine[0]!.data).toMatchObject({ source: 'unsubscribe_page' });

    // Repeating it is harmless: same answer, no second event.
    expectHtml(await page('POST', `/unsubscribe/${token}`, { confirm: 'yes' }), 200, 'de');
    expect(await eventsOf(c.id, 'contact.unsubscribed')).toHaveLength(1);

    // The GET page of an unsubscribed contact says so and offers the way back.
    const again = await page('GET', `/unsubscribe/${token}`);
    expect(again.html).toContain('Sie wurden abgemeldet');
    expect(again.html).toContain('Wieder anmelden');
  });

  it('accepts the RFC 8058 one-click POST', async () => {
    const c = await createContact(p.api);
    const token = tokenOf(c.id);
    const res = await page('POST', `/unsubscribe/${token}`, 'List-Unsubscribe=One-Click', {
      'user-agent': 'MailClient/1.0',
    });
    expectHtml(res, 200, 'en');
    expect((await getContact(c.id)).subscribed).toBe(false);
    await expectOneEvent(c.id, 'contact.unsubscribed', { source: 'one_click' });
    // In the consent history, newest first: the header's unsubscribe, made by the visitor from where it came.
    const consent = await expectBody(p.api.get(`/contacts/${c.id}/consent`));
    expect(consent.data.map((r: { change: string }) => r.change)).toEqual(['unsubscribed', 'subscribed']);
    expect(consent.data[0]).toMatchObject({
      source: 'one_click',
      actor: { kind: 'visitor', id: null },
      ip: expect.stringMatching(/127\.0\.0\.1/),
      userAgent: 'MailClient/1.0',
    });
    expect(consent.data[1]).toMatchObject({ source: 'api', actor: { kind: 'secret-key' }, ip: null });
  });

  it('accepts the one-click POST as multipart/form-data too, and a POST without a body', async () => {
    const c = await createContact(p.api);
    const form = new FormData();
    form.set('List-Unsubscribe', 'One-Click');
    const res = await fetch(`${server.url}/unsubscribe/${tokenOf(c.id)}`, { method: 'POST', body: form });
    expect(res.status).toBe(200);
    expect((await eventsOf(c.id, 'contact.unsubscribed'))[0]!.data).toMatchObject({ source: 'one_click' });

    const d = await createContact(p.api);
    expectHtml(await page('POST', `/unsubscribe/${tokenOf(d.id)}`), 200);
    expect((await getContact(d.id)).subscribed).toBe(false);
  });
});

describe('resubscribe', () => {
  it('GET asks, POST resubscribes and emits contact.subscribed once', async () => {
    const c = await createContact(p.api, { subscribed: false, data: { locale: 'fr' } });
    const token = tokenOf(c.id);
    const ask = await page('GET', `/subscribe/${token}`);
    expectHtml(ask, 200, 'fr');
    expect(ask.html).toContain('Se réabonner\u00a0?');
    expect((await getContact(c.id)).subscribed).toBe(false);

    const res = await page('POST', `/subscribe/${token}`, { confirm: 'yes' });
    expectHtml(res, 200, 'fr');
    expect(res.html).toContain('Votre abonnement est actif');
    expect((await getContact(c.id)).subscribed).toBe(true);
    await page('POST', `/subscribe/${token}`, { confirm: 'yes' });
    await expectOneEvent(c.id, 'contact.subscribed', { source: 'subscribe_page' });
  });

  it('ends a snooze', async () => {
    const c = await createContact(p.api);
    const token = tokenOf(c.id);
    expectHtml(await page('POST', `/manage/${token}`, { action: 'snooze', days: '7' }), 200);
    expect((await getContact(c.id)).snoozedUntil).not.toBeNull();
    expectHtml(await page('POST', `/subscribe/${token}`, {}), 200);
    const after = await getContact(c.id);
    expect(after.subscribed).toBe(true);
    expect(after.snoozedUntil).toBeNull();
  });
});

describe('manage', () => {
  it('snoozes for 30 days, shows the date, and unsubscribes/resubscribes', async () => {
    const c = await createContact(p.api, { data: { locale: 'es' } });
    const token = tokenOf(c.id);
    const before = Date.now();
    const res = await page('POST', `/manage/${token}`, { action: 'snooze', days: '30' });
    expectHtml(res, 200, 'es');
    expect(res.html).toContain('Se han guardado sus preferencias.');
    const snoozed = await getContact(c.id);
    expect(snoozed.subscribed).toBe(false);
    const until = Date.parse(snoozed.snoozedUntil!);
    expect(until).toBeGreaterThanOrEqual(before + 30 * 86_400_000 - 1000);
    expect(until).toBeLessThanOrEqual(Date.now() + 30 * 86_400_000 + 1000);
    const date = new Intl.DateTimeFormat('es', { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(until));
    expect(res.html).toContain(`En pausa hasta el ${date}`);
    await expectOneEvent(c.id, 'contact.unsubscribed', { source: 'manage_page', snoozedUntil: snoozed.snoozedUntil });

    // Snoozing again moves the end, without another event.
    await page('POST', `/manage/${token}`, { action: 'snooze', days: '90' });
    expect(Date.parse((await getContact(c.id)).snoozedUntil!)).toBeGreaterThan(until);
    expect(await eventsOf(c.id, 'contact.unsubscribed')).toHaveLength(1);

    const unsub = await page('POST', `/manage/${token}`, { action: 'unsubscribe' });
    expectHtml(unsub, 200, 'es');
    expect(unsub.html).toContain('Suscripción cancelada');
    const gone = await getContact(c.id);
    expect(gone.subscribed).toBe(false);
    expect(gone.snoozedUntil).toBeNull();

    const back = await page('POST', `/manage/${token}`, { action: 'subscribe' });
    expect(back.html).toContain('Suscripción activa');
    expect((await getContact(c.id)).subscribed).toBe(true);
    await expectOneEvent(c.id, 'contact.subscribed', { source: 'manage_page' });
  });

  it('answers an unknown action or snooze length with a 400 page and changes nothing', async () => {
    const c = await createContact(p.api);
    const token = tokenOf(c.id);
    const forms: Record<string, string>[] = [
      { action: 'delete' },
      {},
      { action: 'snooze', days: '12' },
      { action: 'snooze' },
    ];
    for (const form of forms) {
      const res = await page('POST', `/manage/${token}`, form);
      expectHtml(res, 400, 'en');
      expect(res.html).toContain('Request not understood');
    }
    const after = await getContact(c.id);
    expect(after.subscribed).toBe(true);
    expect(after.snoozedUntil).toBeNull();
  });
});

describe('bad links', () => {
  it('answer a forged, altered or malformed token with a 404 page', async () => {
    const c = await createContact(p.api);
    const token = tokenOf(c.id);
    const parts = token.split('.');
    const otherContact = await createContact(p.api);
    const cases = [
      `${parts.slice(0, 3).join('.')}.AAAAAAAAAAAAAAAAAAAAAA`, // forged signature
      [parts[0], otherContact.id, parts[2], parts[3]].join('.'), // signature of another contact
      token.slice(0, -1), // truncated
      'not-a-token',
      `${token}.extra`,
    ];
    for (const bad of cases) {
      for (const path of [`/unsubscribe/${bad}`, `/subscribe/${bad}`, `/manage/${bad}`]) {
        expectHtml(await page('GET', path), 404, 'en');
        const posted = await page('POST', path, { action: 'unsubscribe' });
        expectHtml(posted, 404, 'en');
        expect(posted.html).toContain('Link not valid');
      }
    }
    expect((await getContact(c.id)).subscribed).toBe(true);
    expect((await getContact(otherContact.id)).subscribed).toBe(true);
  });

  it('answer paths without a token, or with a bad method, with an HTML 404 too', async () => {
    expectHtml(await page('GET', '/unsubscribe/'), 404);
    expectHtml(await page('GET', '/manage/a/b'), 404);
    const put = await fetch(`${server.url}/manage/${tokenOf((await createContact(p.api)).id)}`, { method: 'PUT' });
    expect(put.status).toBe(404);
    expect(put.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('pick the 404 language from Accept-Language', async () => {
    const res = await page('GET', '/manage/nope', undefined, { 'accept-language': 'pt-BR,pt;q=0.9,en;q=0.8' });
    expectHtml(res, 404, 'pt');
    expect(res.html).toContain('Link inválido');
  });

  it('answer the token of a deleted contact with a 404 page', async () => {
    const c = await createContact(p.api);
    const token = tokenOf(c.id);
    expect((await p.api.delete(`/contacts/${c.id}`)).status).toBe(204);
    expectHtml(await page('GET', `/unsubscribe/${token}`), 404);
    expectHtml(await page('POST', `/unsubscribe/${token}`, 'List-Unsubscribe=One-Click'), 404);
    expectHtml(await page('POST', `/manage/${token}`, { action: 'snooze', days: '7' }), 404);
  });

  it('do not reach a contact of another project', async () => {
    const other = await server.project('subscriber-pages-other');
    const c = await createContact(other.api);
    // A token claiming the contact under the wrong project, signed with the instance key.
    expectHtml(await page('GET', `/manage/${tokenOf(c.id, p.id)}`), 404);
    expectHtml(await page('GET', `/manage/${tokenOf(c.id, other.id)}`), 200);
  });

  it('need no API key, and ignore one', async () => {
    const c = await createContact(p.api);
    const res = await page('GET', `/manage/${tokenOf(c.id)}`, undefined, { authorization: 'Bearer sk_nonsense' });
    expectHtml(res, 200);
  });
});

describe('form bodies', () => {
  it('are parsed for these pages only: the JSON API still refuses them', async () => {
    const res = await p.api.request('POST', '/contacts', {
      raw: 'email=form%40pages.test',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ success: false, error: { statusCode: 415 } });
  });
});

describe('escaping', () => {
  it('escapes the address shown on the pages', async () => {
    // An apostrophe is valid in the local part of an address, and means something in HTML.
    const email = `o'brien-${++seq}@pages.test`;
    const c = await createContact(p.api, { email });
    for (const path of ['manage', 'unsubscribe', 'subscribe']) {
      const res = await page('GET', `/${path}/${tokenOf(c.id)}`);
      expectHtml(res, 200);
      expect(res.html).toContain(email.replace("'", '&#39;'));
      expect(res.html).not.toContain(`o'brien`);
    }
  });
});
