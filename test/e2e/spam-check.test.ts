import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/platform/free-port.js';
import { expectErrorEnvelope, startTestServer, type TestProject, type TestServer } from '../support/server.js';
import { hasSpamd, type Spamd, startSpamd } from '../support/spamd.js';

const FROM = 'receipts@shop.spam-check.test';

/** A short receipt: its only image is the open-tracking pixel that sending adds. */
const RECEIPT = {
  subject: 'Your receipt',
  body: '<p>Thanks for your order, {{ firstName ?? "friend" }}. Order 1042: 1 mug, 12.00 EUR.</p>',
  type: 'TRANSACTIONAL',
  from: FROM,
};

const SPAMMY = {
  subject: 'FREE MONEY!!! Act now, limited time offer, 100% guaranteed',
  body:
    '<p>Dear friend, CLICK HERE to claim your FREE MONEY! You have been selected as a WINNER. ' +
    '100% GUARANTEED risk-free! Earn extra cash from home, no experience needed. Lose weight fast, ' +
    'cheap viagra, meet singles. Act now! Limited time offer! This is not spam. Order now and get ' +
    'double your money back! Lowest mortgage rates, consolidate your debt now.</p>' +
    '<p><a href="http://192.0.2.7/claim">CLICK HERE</a></p>',
  type: 'MARKETING',
  from: FROM,
};

describe.skipIf(!hasSpamd)('the spam check against Debian’s spamd', () => {
  let spamd: Spamd;
  let server: TestServer;
  let project: TestProject;

  beforeAll(async () => {
    spamd = await startSpamd();
    server = await startTestServer({ SPAMD_URL: spamd.url });
    project = await server.project();
  });
  afterAll(async () => {
    await server?.stop();
    await spamd?.stop();
  });

  it('scores the receipt as sent, open pixel included, and names the image-only rule with its description', async () => {
    expect((await project.api.get('/templates/spam-check')).body).toMatchObject({ configured: true });
    const res = await project.api.post('/templates/spam-check', RECEIPT);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ configured: true, threshold: 5, warnAbove: 3, warning: false });
    const imageOnly = res.body.rules.find((r: { name: string }) => r.name.startsWith('HTML_IMAGE_ONLY'));
    expect(imageOnly, JSON.stringify(res.body.rules)).toMatchObject({
      score: expect.any(Number),
      description: expect.stringMatching(/images with/),
    });
    expect(imageOnly.score).toBeGreaterThan(0);
    expect(res.body.score).toBeGreaterThanOrEqual(imageOnly.score);
    expect(res.body.message).toMatch(/points?: at or below 3/);
    // The rules come most points first, each with a description.
    const scores = res.body.rules.map((r: { score: number }) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const rule of res.body.rules) expect(rule.description).not.toBe('');
  });

  it('warns above 3 points, and the check of a saved template and campaign gives the same answer', async () => {
    const res = await project.api.post('/templates/spam-check', SPAMMY);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.score).toBeGreaterThan(3);
    expect(res.body.warning).toBe(true);
    expect(res.body.message).toMatch(/above 3/);
    const names = res.body.rules.map((r: { name: string }) => r.name);
    expect(names).toEqual(expect.arrayContaining(['DEAR_FRIEND', 'GUARANTEED_100_PERCENT']));

    const template = await project.api.post('/templates', { name: 'Offer', ...SPAMMY });
    expect(template.status, JSON.stringify(template.body)).toBe(201);
    const saved = await project.api.post(`/templates/${template.body.id}/spam-check`, {});
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.score).toBe(res.body.score);

    const campaign = await project.api.post('/campaigns', { name: 'Offer', audienceType: 'ALL', ...SPAMMY });
    expect(campaign.status, JSON.stringify(campaign.body)).toBe(201);
    const checked = await project.api.post(`/campaigns/${campaign.body.data.id}/spam-check`);
    expect(checked.status, JSON.stringify(checked.body)).toBe(200);
    expect(checked.body.warning).toBe(true);
    expect(checked.body.rules.map((r: { name: string }) => r.name)).toEqual(expect.arrayContaining(['DEAR_FRIEND']));
  });

  it('renders as a contact of the project when asked', async () => {
    const contact = await project.api.post('/contacts', { email: 'ada@example.org', data: { firstName: 'Ada' } });
    expect(contact.status, JSON.stringify(contact.body)).toBe(201);
    const res = await project.api.post('/templates/spam-check', { ...RECEIPT, contactId: contact.body.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.configured).toBe(true);
  });

  it('answers 404 for a template, campaign or contact that is not there, and 422 for a template that does not render', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    expectErrorEnvelope(await project.api.post(`/templates/${missing}/spam-check`, {}), 404, 'NOT_FOUND');
    expectErrorEnvelope(await project.api.post(`/campaigns/${missing}/spam-check`, {}), 404, 'NOT_FOUND');
    expectErrorEnvelope(
      await project.api.post('/templates/spam-check', { ...RECEIPT, contactId: missing }),
      404,
      'NOT_FOUND',
    );
    const broken = await project.api.post('/templates/spam-check', { ...RECEIPT, body: '{% if %}' });
    expectErrorEnvelope(broken, 422, 'VALIDATION_ERROR');
    expect(broken.body.error.errors[0]).toMatchObject({ field: 'body', code: 'invalid_template' });
    const noSender = await project.api.post('/templates/spam-check', { ...RECEIPT, from: 'nobody' });
    expectErrorEnvelope(noSender, 422, 'VALIDATION_ERROR');
    expect(noSender.body.error.errors[0].field).toBe('from');
  });
});

describe('the spam check without SPAMD_URL', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('says it is off and how to turn it on', async () => {
    const project = await server.project();
    const status = await project.api.get('/templates/spam-check');
    expect(status.status, JSON.stringify(status.body)).toBe(200);
    expect(status.body).toEqual({ configured: false, warnAbove: 3, message: expect.stringContaining('SPAMD_URL') });
    const res = await project.api.post('/templates/spam-check', RECEIPT);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      configured: false,
      score: null,
      threshold: null,
      warnAbove: 3,
      warning: false,
      rules: [],
      message: expect.stringContaining('SPAMD_URL'),
    });
  });
});

describe('the spam check when spamd fails', () => {
  let server: TestServer;
  let listener: net.Server;
  const held: net.Socket[] = [];

  beforeAll(async () => {
    // Accepts connections and never answers, like a spamd that hangs.
    const port = await freePort();
    listener = net.createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => listener.listen(port, '127.0.0.1', resolve));
    server = await startTestServer({ SPAMD_URL: `spamd://127.0.0.1:${port}`, SPAMD_TIMEOUT_SECONDS: '3' });
  });
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    listener?.close();
    await server?.stop();
  });

  it('answers 503 SPAM_CHECK_UNAVAILABLE once the deadline passes, and serves other requests meanwhile', async () => {
    const project = await server.project();
    const started = Date.now();
    const checking = project.api.post('/templates/spam-check', RECEIPT);
    const other = await project.api.get('/templates');
    expect(other.status).toBe(200);
    // Answered while the check still waits for its deadline.
    expect(Date.now() - started).toBeLessThan(2500);
    const res = await checking;
    const took = Date.now() - started;
    expectErrorEnvelope(res, 503, 'SPAM_CHECK_UNAVAILABLE');
    expect(res.body.error.message).toMatch(/did not answer within 3 s/);
    expect(res.headers.get('retry-after')).toBe('30');
    expect(took).toBeGreaterThanOrEqual(2900);
    expect(took).toBeLessThan(8000);
  });

  it('answers 503 at once when nothing listens', async () => {
    await new Promise<void>((resolve) => {
      for (const socket of held) socket.destroy();
      listener.close(() => resolve());
    });
    const project = await server.project();
    const started = Date.now();
    const res = await project.api.post('/templates/spam-check', RECEIPT);
    expectErrorEnvelope(res, 503, 'SPAM_CHECK_UNAVAILABLE');
    expect(res.body.error.message).toMatch(/could not be reached \(ECONNREFUSED\)/);
    // Without waiting for the 3 s deadline.
    expect(Date.now() - started).toBeLessThan(2500);
  });
});
