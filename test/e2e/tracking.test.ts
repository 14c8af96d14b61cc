import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { clickUrl, openPixelUrl } from '../../src/domain/signed-links.js';
import { run } from '../../src/platform/db/client.js';
import { projectWithDomain, useServerWithDns } from '../support/mail-server.js';
import type { TestProject } from '../support/server.js';

const DOMAIN = 'news.tracking.test';
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

let p: TestProject;

const stack = useServerWithDns();

beforeAll(async () => {
  p = await projectWithDomain(stack, 'tracking', DOMAIN);
});

let seq = 0;
const LINK = 'https://shop.example/sale?a=1&b=two%20words';

/** Sends one email through /v1/send; returns the ids of its record and its contact. */
async function sendOne(body = `<html><body><p>Hi</p><a href="${LINK.replace(/&/g, '&amp;')}">Sale</a></body></html>`) {
  const res = await p.api.post('/v1/send', {
    to: `reader-${++seq}@tracking.test`,
    from: `news@${DOMAIN}`,
    subject: 'Hello',
    body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const [sent] = res.body.data.emails as { contact: { id: string }; email: string }[];
  return { emailId: sent!.email, contactId: sent!.contact.id };
}

const links = () => stack.server.service.ctx.links;
const openUrl = (emailId: string) => openPixelUrl(stack.server.url, links(), emailId);
const clickOf = (emailId: string, url: string) => clickUrl(stack.server.url, links(), emailId, url);

async function record(emailId: string) {
  const res = await p.api.get(`/emails/${emailId}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { openCount: number; clickCount: number; openedAt: string | null; clickedAt: string | null };
}

async function eventsOf(contactId: string, name: string) {
  const res = await p.api.get(`/events/contact/${contactId}?limit=100&name=${encodeURIComponent(name)}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { name: string; data: Record<string, unknown> }[];
}

async function expectPixel(url: string, method = 'GET') {
  const res = await fetch(url, { method });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('image/gif');
  expect(res.headers.get('cache-control')).toBe('no-store, max-age=0');
  if (method === 'GET') expect(Buffer.from(await res.arrayBuffer()).equals(GIF)).toBe(true);
}

async function expect404Page(url: string) {
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(404);
  expect(res.headers.get('location')).toBeNull();
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(await res.text()).toContain('Link not valid');
}

describe('open pixel', () => {
  it('answers a 1x1 GIF, counts every open and emits email.opened on the first only', async () => {
    const { emailId, contactId } = await sendOne();
    expect(await record(emailId)).toMatchObject({ openCount: 0, openedAt: null });

    await expectPixel(openUrl(emailId));
    const first = await record(emailId);
    expect(first.openCount).toBe(1);
    expect(first.openedAt).not.toBeNull();
    const opened = await eventsOf(contactId, 'email.opened');
    expect(opened).toHaveLength(1);
    expect(opened[0]!.data).toEqual({ emailId });

    await expectPixel(openUrl(emailId));
    await expectPixel(openUrl(emailId));
    const later = await record(emailId);
    expect(later.openCount).toBe(3);
    expect(later.openedAt).toBe(first.openedAt);
    expect(await eventsOf(contactId, 'email.opened')).toHaveLength(1);
  });

  it('decides the first open once under concurrent requests', async () => {
    const { emailId, contactId } = await sendOne();
    await Promise.all(Array.from({ length: 12 }, () => expectPixel(openUrl(emailId))));
    expect((await record(emailId)).openCount).toBe(12);
    expect(await eventsOf(contactId, 'email.opened')).toHaveLength(1);
  });

  it('still answers the GIF for a bad signature or id, and records nothing', async () => {
    const { emailId, contactId } = await sendOne();
    await expectPixel(`${stack.server.url}/t/open/${emailId}/AAAAAAAAAAAAAAAAAAAAAA`);
    await expectPixel(`${stack.server.url}/t/open/${emailId}/x`);
    await expectPixel(`${stack.server.url}/t/open/${randomUUID()}/${links().sign('open', emailId)}`);
    await expectPixel(`${stack.server.url}/t/open/not-a-uuid/${links().sign('open', 'not-a-uuid')}`);
    await expectPixel(`${stack.server.url}/t/open/${randomUUID()}/${links().sign('open', randomUUID())}`);
    // A click signature is not an open signature.
    await expectPixel(`${stack.server.url}/t/open/${emailId}/${links().sign('click', emailId, LINK)}`);
    expect((await record(emailId)).openCount).toBe(0);
    expect(await eventsOf(contactId, 'email.opened')).toHaveLength(0);
  });

  it('does not count HEAD requests', async () => {
    const { emailId } = await sendOne();
    await expectPixel(openUrl(emailId), 'HEAD');
    expect((await record(emailId)).openCount).toBe(0);
  });

  it('carries the campaign id, and counts without an event once the contact is deleted', async () => {
    const { emailId, contactId } = await sendOne();
    const campaignId = randomUUID();
    await run(stack.server.service.ctx.db, sql`update emails set campaign_id = ${campaignId} where id = ${emailId}`);
    await expectPixel(openUrl(emailId));
    expect((await eventsOf(contactId, 'email.opened'))[0]!.data).toEqual({ emailId, campaignId });

    const other = await sendOne();
    expect((await p.api.delete(`/contacts/${other.contactId}`)).status).toBe(204);
    await expectPixel(openUrl(other.emailId));
    const { rows } = await run(
      stack.server.service.ctx.db,
      sql`select contact_id, open_count, opened_at from emails where id = ${other.emailId}`,
    );
    expect(rows[0]).toMatchObject({ contact_id: null, open_count: 1 });
    expect(rows[0].opened_at).not.toBeNull();
  });
});

describe('click', () => {
  it('redirects to exactly the URL, counts every click, and the first click counts as the open', async () => {
    const { emailId, contactId } = await sendOne();
    const res = await fetch(clickOf(emailId, LINK), { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(LINK);

    const first = await record(emailId);
    expect(first).toMatchObject({ clickCount: 1, openCount: 1 });
    expect(first.clickedAt).not.toBeNull();
    expect(first.openedAt).toBe(first.clickedAt);
    const clicked = await eventsOf(contactId, 'email.clicked');
    expect(clicked).toHaveLength(1);
    expect(clicked[0]!.data).toEqual({ emailId, url: LINK });
    expect(await eventsOf(contactId, 'email.opened')).toHaveLength(1);

    const second = await fetch(clickOf(emailId, 'https://other.example/'), { redirect: 'manual' });
    expect(second.headers.get('location')).toBe('https://other.example/');
    await expectPixel(openUrl(emailId));
    const later = await record(emailId);
    expect(later).toMatchObject({ clickCount: 2, openCount: 2, clickedAt: first.clickedAt, openedAt: first.openedAt });
    expect((await eventsOf(contactId, 'email.clicked')).map((e) => e.data.url).sort()).toEqual(
      ['https://other.example/', LINK].sort(),
    );
    expect(await eventsOf(contactId, 'email.opened')).toHaveLength(1);
  });

  it('after an open, does not count another open', async () => {
    const { emailId, contactId } = await sendOne();
    await expectPixel(openUrl(emailId));
    expect((await fetch(clickOf(emailId, LINK), { redirect: 'manual' })).status).toBe(302);
    expect(await record(emailId)).toMatchObject({ openCount: 1, clickCount: 1 });
    expect(await eventsOf(contactId, 'email.opened')).toHaveLength(1);
    expect(await eventsOf(contactId, 'email.clicked')).toHaveLength(1);
  });

  it('follows the links the send pipeline wrote into the email', async () => {
    const { emailId, contactId } = await sendOne();
    const { rows } = await run<{ html: string }>(
      stack.server.service.ctx.db,
      sql`select html from emails where id = ${emailId}`,
    );
    const row = rows[0];
    const publicUrl = stack.server.service.ctx.config.publicUrl;
    const hrefs = [...row!.html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    const tracked = hrefs.find((h) => h.startsWith(`${publicUrl}/t/click/`));
    expect(tracked, row!.html).toBeDefined();
    const res = await fetch(stack.server.url + tracked!.slice(publicUrl.length), { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(LINK);
    const pixel = /<img src="([^"]+)"/.exec(row!.html)![1]!;
    await expectPixel(stack.server.url + pixel.slice(publicUrl.length));
    expect(await record(emailId)).toMatchObject({ clickCount: 1, openCount: 2 });
    expect(await eventsOf(contactId, 'email.clicked')).toHaveLength(1);
  });

  it('percent-encodes what cannot stand in a header, and nothing else', async () => {
    const { emailId } = await sendOne();
    const url = 'https://shop.example/über uns?q=ä#top';
    const res = await fetch(clickOf(emailId, url), { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://shop.example/%C3%BCber%20uns?q=%C3%A4#top');
  });

  it('refuses an altered URL, a foreign signature and non-http(s) URLs with a 404 page, recording nothing', async () => {
    const { emailId, contactId } = await sendOne();
    const valid = new URL(clickOf(emailId, LINK));
    const signature = valid.pathname.split('/').pop()!;
    const base = `${stack.server.url}/t/click/${emailId}/${signature}`;
    await expect404Page(`${base}?url=${encodeURIComponent('https://evil.example/')}`);
    await expect404Page(`${base}?url=${encodeURIComponent(`${LINK}&x=1`)}`);
    await expect404Page(base);
    await expect404Page(`${base}?url=${encodeURIComponent(LINK)}&url=${encodeURIComponent(LINK)}`);
    await expect404Page(`${stack.server.url}/t/click/${randomUUID()}/${signature}?url=${encodeURIComponent(LINK)}`);
    await expect404Page(
      `${stack.server.url}/t/click/${emailId}/${links().sign('open', emailId)}?url=${encodeURIComponent(LINK)}`,
    );
    for (const bad of [
      'javascript:alert(document.cookie)',
      'data:text/html,<script>alert(1)</script>',
      '//evil.example/',
      'ftp://files.example/',
      ' https://x.example/',
    ]) {
      await expect404Page(clickOf(emailId, bad));
    }
    expect(await record(emailId)).toMatchObject({ clickCount: 0, openCount: 0 });
    expect(await eventsOf(contactId, 'email.clicked')).toHaveLength(0);
  });

  it('redirects a valid link of an unknown email without counting anything', async () => {
    const res = await fetch(clickOf(randomUUID(), LINK), { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(LINK);
  });

  it('does not count HEAD requests', async () => {
    const { emailId } = await sendOne();
    const res = await fetch(clickOf(emailId, LINK), { method: 'HEAD', redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(await record(emailId)).toMatchObject({ clickCount: 0, openCount: 0 });
  });

  it('answers unknown tracking paths with an HTML 404', async () => {
    const res = await fetch(`${stack.server.url}/t/nothing`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  });
});
