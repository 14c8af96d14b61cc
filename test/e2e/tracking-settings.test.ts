import { type ParsedMail, simpleParser } from 'mailparser';
import { beforeAll, describe, expect, it } from 'vitest';
import { batchCampaign, batchContacts, sendNow } from '../support/campaigns.js';
import { projectWithDomain, useMailServer } from '../support/mail-server.js';
import { deliveredMessage, sendOk, sinkMessagesTo, uniqueAddresses } from '../support/sending.js';
import { type Client, eventually, expectBody, expectErrorEnvelope, type TestProject } from '../support/server.js';

// Open and click tracking as each level chooses it (the project per type, a template or campaign,
// a send), seen where it matters: in the HTML of the messages the relay receives.

const DOMAIN = 'mail.tracking-settings.test';
const rcpt = uniqueAddresses('rcpt.tracking-settings.test');
const LINK = 'https://shop.example/sale';
const BODY = `<html><body><p>Hi</p><a href="${LINK}">Sale</a></body></html>`;

const mail = useMailServer();
let p: TestProject;

beforeAll(async () => {
  p = await projectWithDomain(mail, 'tracking-settings', DOMAIN);
});

/** What the HTML of a received message tracks: a pixel, and whether its link goes through the service. */
function tracked(parsed: ParsedMail) {
  const html = typeof parsed.html === 'string' ? parsed.html : '';
  const publicUrl = mail.server.service.ctx.config.publicUrl;
  return {
    opens: html.includes(`${publicUrl}/t/open/`),
    clicks: html.includes(`${publicUrl}/t/click/`) && !html.includes(`href="${LINK}"`),
  };
}

/** Sends through /v1/send (as `api`'s project) and answers what the message at the sink tracks. */
async function sendTracked(body: Record<string, unknown>, api: Client = p.api) {
  const data = await sendOk(api, { to: rcpt('to'), from: `app@${DOMAIN}`, ...body });
  const message = await deliveredMessage(mail.sink, data.emails[0]!.email);
  return tracked(await simpleParser(message.raw));
}

const plain = { subject: 'Hello', body: BODY };

describe('project tracking settings', () => {
  it('track opens and clicks of transactional and marketing mail, not headless, until changed', async () => {
    const settings = await expectBody(p.api.get('/tracking-settings'));
    expect(settings).toEqual({
      TRANSACTIONAL: { opens: true, clicks: true },
      MARKETING: { opens: true, clicks: true },
      HEADLESS: { opens: false, clicks: false },
    });
    expect(await sendTracked(plain)).toEqual({ opens: true, clicks: true });
  });

  it('apply to the type changed only, and what is left out of a change stays', async () => {
    const other = await projectWithDomain(mail, 'tracking-settings-marketing', `other.${DOMAIN}`);
    const changed = await expectBody(other.api.patch('/tracking-settings', { MARKETING: { clicks: false } }));
    expect(changed.MARKETING).toEqual({ opens: true, clicks: false });
    expect(changed.TRANSACTIONAL).toEqual({ opens: true, clicks: true });
    expect(await expectBody(other.api.get('/tracking-settings'))).toEqual(changed);

    const template = await expectBody(
      other.api.post('/templates', { name: 'News', ...plain, from: `news@other.${DOMAIN}`, type: 'MARKETING' }),
      201,
    );
    const from = `news@other.${DOMAIN}`;
    expect(await sendTracked({ template: template.id, from, subscribed: true }, other.api)).toEqual({
      opens: true,
      clicks: false,
    });
    // Transactional mail of the same project is tracked as before.
    expect(await sendTracked({ ...plain, from }, other.api)).toEqual({ opens: true, clicks: true });
  });

  it('refuse anything but booleans and unknown types or flags, in the error envelope', async () => {
    for (const body of [{ MARKETING: { clicks: 'no' } }, { MARKETING: { bounces: true } }, { NEWSLETTER: {} }]) {
      expectErrorEnvelope(await p.api.patch('/tracking-settings', body), 422, 'VALIDATION_ERROR');
    }
    expect((await expectBody(p.api.get('/tracking-settings'))).MARKETING).toEqual({ opens: true, clicks: true });
  });
});

describe('a send', () => {
  it('without trackOpens has no pixel, its links still tracked', async () => {
    expect(await sendTracked({ ...plain, trackOpens: false })).toEqual({ opens: false, clicks: true });
  });

  it('of headless mail is tracked when it asks', async () => {
    const template = await expectBody(
      p.api.post('/templates', { name: 'Receipt', ...plain, from: `app@${DOMAIN}`, type: 'HEADLESS' }),
      201,
    );
    expect(await sendTracked({ template: template.id })).toEqual({ opens: false, clicks: false });
    expect(await sendTracked({ template: template.id, trackOpens: true })).toEqual({ opens: true, clicks: false });
  });

  it('with a non-boolean flag is refused with 422 and sends nothing', async () => {
    const to = rcpt('refused');
    const res = await p.api.post('/v1/send', { to, from: `app@${DOMAIN}`, ...plain, trackClicks: 'false' });
    expectErrorEnvelope(res, 422, 'VALIDATION_ERROR');
    expect(res.body.error.errors).toContainEqual(expect.objectContaining({ field: 'trackClicks' }));
    expect(sinkMessagesTo(mail.sink, to)).toHaveLength(0);
  });
});

describe('a template', () => {
  it("chooses over the project's setting, and a send's choice over the template's", async () => {
    const template = await expectBody(
      p.api.post('/templates', {
        name: 'Welcome',
        ...plain,
        from: `app@${DOMAIN}`,
        type: 'TRANSACTIONAL',
        trackClicks: false,
      }),
      201,
    );
    expect(template).toMatchObject({ trackOpens: null, trackClicks: false });
    expect(await sendTracked({ template: template.id })).toEqual({ opens: true, clicks: false });
    expect(await sendTracked({ template: template.id, trackClicks: true })).toEqual({ opens: true, clicks: true });

    // Back to null: the project's setting again.
    const patched = await expectBody(
      p.api.patch(`/templates/${template.id}`, { trackClicks: null, trackOpens: false }),
    );
    expect(patched).toMatchObject({ trackOpens: false, trackClicks: null });
    expect(await sendTracked({ template: template.id })).toEqual({ opens: false, clicks: true });
  });

  it('refuses a non-boolean flag with 422', async () => {
    const res = await p.api.post('/templates', { name: 'Bad', ...plain, from: `app@${DOMAIN}`, trackOpens: 'yes' });
    expectErrorEnvelope(res, 422, 'VALIDATION_ERROR');
  });
});

describe('a campaign', () => {
  it("chooses for every one of its messages over the project's setting", async () => {
    const batch = 'untracked-clicks';
    const contacts = await batchContacts(p.api, batch, [rcpt('campaign'), rcpt('campaign')]);
    const campaign = await batchCampaign(p.api, `news@${DOMAIN}`, batch, { body: BODY, trackClicks: false });
    expect(campaign).toMatchObject({ trackOpens: null, trackClicks: false });
    await sendNow(p.api, campaign.id);
    for (const { email } of contacts) {
      const [message] = await eventually(async () => {
        const found = sinkMessagesTo(mail.sink, email);
        return found.length ? found : undefined;
      }, 20_000);
      expect(tracked(await simpleParser(message!.raw))).toEqual({ opens: true, clicks: false });
    }
  });

  it('refuses a non-boolean flag with 422', async () => {
    const res = await p.api.post('/campaigns', {
      name: 'Bad',
      ...plain,
      from: `news@${DOMAIN}`,
      audienceType: 'ALL',
      trackClicks: 0,
    });
    expectErrorEnvelope(res, 422, 'VALIDATION_ERROR');
  });
});
