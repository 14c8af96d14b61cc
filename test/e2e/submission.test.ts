import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type ParsedMail, simpleParser } from 'mailparser';
import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/platform/free-port.js';
import { verifiedDomain } from '../support/domains.js';
import { projectWithDomain, useChildPeers, useMailServer } from '../support/mail-server.js';
import {
  deliveredMessage,
  emailRecord,
  headerBlock,
  messageIdOf,
  sinkMessagesFor,
  sinkMessagesTo,
  UUID,
  uniqueAddresses,
  verifyDkim,
} from '../support/sending.js';
import {
  type ChildServer,
  client,
  eventually,
  expectBody,
  printedKeys,
  spawnService,
  type TestProject,
} from '../support/server.js';

// SMTP submission: applications send through the service as through any SMTP relay, with a project's
// secret key as the password. Two independent clients (nodemailer, Python's smtplib) talk to a real
// listener over STARTTLS and implicit TLS, with a certificate made here.

const DOMAIN = 'mail.submission.test';
const FROM = `app@${DOMAIN}`;
const rcpt = uniqueAddresses('rcpt.submission.test');
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

const tlsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pbx-submission-tls-'));
let cert = '';
const env: Record<string, string> = {
  SUBMISSION_SMTP_PORT: '0',
  SUBMISSION_SMTPS_PORT: '0',
  DELIVERY_RETRY_BASE_SECONDS: '0.2',
  RATE_LIMIT_PER_MINUTE: '300',
};
// Registered before the mail server's own hook, which reads `env` when it starts the service.
beforeAll(async () => {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 7, ip: '127.0.0.1' },
          { type: 2, value: 'localhost' },
        ],
      },
    ],
  });
  cert = pems.cert;
  fs.writeFileSync(path.join(tlsDir, 'cert.pem'), pems.cert);
  fs.writeFileSync(path.join(tlsDir, 'key.pem'), pems.private);
  env.SUBMISSION_TLS_CERT = path.join(tlsDir, 'cert.pem');
  env.SUBMISSION_TLS_KEY = path.join(tlsDir, 'key.pem');
});
afterAll(() => fs.rmSync(tlsDir, { recursive: true, force: true }));

const mail = useMailServer(env);
let main: TestProject;
const transports: Transporter[] = [];

beforeAll(async () => {
  main = await projectWithDomain(mail, 'submission-main', DOMAIN);
});
afterAll(() => {
  for (const t of transports) t.close();
});

const ports = () => mail.server.service.submissionPorts!;

/** A nodemailer transport to the submission port: STARTTLS required, the test certificate trusted. */
function submitter(options: SMTPTransport.Options = {}, key = main.secretKey) {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: ports().port,
    secure: false,
    requireTLS: true,
    tls: { ca: cert },
    auth: { user: 'any-name', pass: key },
    ...options,
  });
  transports.push(transport);
  return transport;
}

type SmtpFailure = Error & { responseCode?: number; response?: string; code?: string };

/** The error a send or a login must end with. */
async function failure(attempt: Promise<unknown>): Promise<SmtpFailure> {
  try {
    await attempt;
  } catch (err) {
    return err as SmtpFailure;
  }
  throw new Error('expected the SMTP client to fail');
}

/** The email ids of a 250 reply: `250 Accepted: <id>,<id>`. */
function acceptedIds(response: string): string[] {
  const m = /^250 Accepted: (\S+)$/.exec(response.trim());
  expect(m, response).not.toBeNull();
  const ids = m![1]!.split(',');
  for (const id of ids) expect(id).toMatch(UUID);
  return ids;
}

const parse = (raw: Buffer): Promise<ParsedMail> => simpleParser(raw, { keepCidLinks: true });

const PYTHON_CLIENT = String.raw`
import base64, json, smtplib, ssl, sys
from email.message import EmailMessage
a = json.load(sys.stdin)
out = {}
with smtplib.SMTP('127.0.0.1', a['port'], timeout=30) as s:
    s.ehlo()
    plain = base64.b64encode(('\0any\0' + a['key']).encode()).decode()
    out['authBeforeTls'] = s.docmd('AUTH', 'PLAIN ' + plain)[0]
    s.starttls(context=ssl.create_default_context(cafile=a['ca']))
    s.ehlo()
    s.user, s.password = 'python-user', a['key']
    out['auth'] = s.auth('LOGIN', s.auth_login, initial_response_ok=False)[0]
    m = EmailMessage()
    m['From'] = 'Python App <' + a['from'] + '>'
    m['To'] = a['to']
    m['Subject'] = a['subject']
    m['X-Python'] = 'yes'
    m.set_content('Sent by smtplib.\n')
    m.add_attachment(b'col1,col2\n1,2\n', maintype='text', subtype='csv', filename='report.csv')
    s.mail(a['from'])
    s.rcpt(a['to'])
    code, reply = s.data(m.as_bytes())
    out['data'] = [code, reply.decode()]
print(json.dumps(out))
`;

/** Runs the Python client above; resolves with what it printed. */
function runPython(input: Record<string, unknown>): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', PYTHON_CLIENT], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`python3: ${code}\n${err}`))));
    child.stdin.end(JSON.stringify(input));
  });
}

describe('a message submitted with nodemailer (STARTTLS, AUTH PLAIN)', () => {
  const to = rcpt('ada');
  const bcc = rcpt('bcc');
  // Over the size read on the event loop: this message is read in the worker pool, the smaller ones inline.
  const invoice = randomBytes(50_000);
  const text = 'Hello Ada,\nyour invoice is attached.\nhttps://example.com/account\n';
  const html =
    '<html><body><p>Hello <b>Ada</b>, your invoice is attached.</p><p><img src="cid:logo@app" alt="logo"></p>' +
    '<p><a href="https://example.com/account">Your account</a></p></body></html>';
  let ids: string[];
  let parsed: ParsedMail;
  let raw: Buffer;

  beforeAll(async () => {
    const info = await submitter({ authMethod: 'PLAIN' }).sendMail({
      from: { name: 'Jürgen’s App', address: FROM },
      to: { name: 'Ada Lovelace', address: to },
      bcc,
      replyTo: 'help@rcpt.submission.test',
      subject: 'Your invoice — Grüße',
      text,
      html,
      headers: { 'X-Order': '42', 'X-Postbox-Type': 'transactional' },
      attachments: [
        { filename: 'invoice.pdf', content: invoice, contentType: 'application/pdf' },
        { filename: 'logo.png', content: PNG, contentType: 'image/png', cid: 'logo@app' },
      ],
    });
    ids = acceptedIds(info.response);
    raw = (await deliveredMessage(mail.sink, ids[0]!)).raw;
    parsed = await parse(raw);
  });

  it('answers 250 with one email id per envelope recipient, in their order (Bcc included)', async () => {
    expect(ids).toHaveLength(2);
    const [first, second] = await Promise.all(ids.map((id) => emailRecord(main.api, id)));
    expect(first).toMatchObject({ to: to, toName: 'Ada Lovelace', type: 'TRANSACTIONAL', from: FROM });
    expect(second).toMatchObject({ to: bcc, toName: null });
    expect(first!.fromName).toBe('Jürgen’s App');
    expect(first!.replyTo).toBe('help@rcpt.submission.test');
  });

  it('reaches the relay DKIM-signed, addressed to its one recipient, with its subject and reply-to', async () => {
    const dkim = await verifyDkim(raw, mail.dns);
    expect(dkim.results[0]!.status.result).toBe('pass');
    expect(dkim.results[0]!.signingDomain).toBe(DOMAIN);
    expect((parsed.from as any).value).toEqual([{ address: FROM, name: 'Jürgen’s App' }]);
    expect((parsed.to as any).value).toEqual([{ address: to, name: 'Ada Lovelace' }]);
    expect(parsed.cc).toBeUndefined();
    expect(parsed.subject).toBe('Your invoice — Grüße');
    expect((parsed.replyTo as any).value[0].address).toBe('help@rcpt.submission.test');
    expect(messageIdOf(raw)).toBe(`<${ids[0]}@${DOMAIN}>`);
    // The Bcc recipient got a message of its own, which names only them.
    const other = await parse((await deliveredMessage(mail.sink, ids[1]!)).raw);
    expect((other.to as any).value).toEqual([{ address: bcc, name: '' }]);
    expect(mail.sink.messages.filter((m) => m.to.includes(to))).toHaveLength(1);
  });

  it('keeps its own text part, tracks the HTML as transactional mail does, carries its headers but not X-Postbox-*', () => {
    expect(parsed.text).toBe(text);
    expect(parsed.html).toContain('<b>Ada</b>');
    expect(parsed.html).toMatch(/\/t\/open\//);
    expect(parsed.html).toMatch(/href="[^"]*\/t\/click\//);
    expect(parsed.html).not.toContain('href="https://example.com/account"');
    expect(parsed.headers.get('x-order')).toBe('42');
    expect([...parsed.headers.keys()].filter((k) => k.startsWith('x-postbox'))).toEqual([]);
    expect(parsed.headers.has('list-unsubscribe')).toBe(false);
  });

  it('carries the attachment byte for byte and the inline image as a related part referenced by cid:', () => {
    const byName = new Map(parsed.attachments.map((a) => [a.filename, a]));
    expect(byName.get('invoice.pdf')!.content.equals(invoice)).toBe(true);
    expect(byName.get('invoice.pdf')!.contentType).toBe('application/pdf');
    const logo = byName.get('logo.png')!;
    expect(logo.content.equals(PNG)).toBe(true);
    expect(logo.contentId).toBe('<logo@app>');
    expect(logo.related).toBe(true);
    expect(parsed.html).toContain('src="cid:logo@app"');
  });

  it('upserts each recipient as a contact, new ones unsubscribed, as /v1/send does', async () => {
    for (const address of [to, bcc]) {
      const page = await expectBody(main.api.get(`/contacts?search=${encodeURIComponent(address)}`));
      expect(page.data).toHaveLength(1);
      expect(page.data[0]).toMatchObject({ email: address, subscribed: false });
    }
  });
});

describe('other clients and ports', () => {
  it('Python smtplib: AUTH refused before STARTTLS (538), then AUTH LOGIN, and the 250 carries the id', async () => {
    const to = rcpt('python');
    const out = await runPython({
      port: ports().port,
      ca: env.SUBMISSION_TLS_CERT,
      key: main.secretKey,
      from: FROM,
      to,
      subject: 'From Python',
    });
    expect(out.authBeforeTls).toBe(538);
    expect(out.auth).toBe(235);
    expect(out.data[0]).toBe(250);
    const [id] = acceptedIds(`250 ${out.data[1]}`);
    const parsed = await parse((await deliveredMessage(mail.sink, id!)).raw);
    expect(parsed.subject).toBe('From Python');
    expect((parsed.from as any).value).toEqual([{ address: FROM, name: 'Python App' }]);
    expect(parsed.text).toBe('Sent by smtplib.\n');
    expect(parsed.html).toBeFalsy();
    expect(parsed.headers.get('x-python')).toBe('yes');
    const csv = parsed.attachments.find((a) => a.filename === 'report.csv')!;
    expect(csv.content.toString()).toBe('col1,col2\n1,2\n');
  });

  it('implicit TLS on the SMTPS port, AUTH LOGIN; a text-only message stays text-only and untracked', async () => {
    const to = rcpt('smtps');
    const info = await submitter({
      port: ports().smtpsPort,
      secure: true,
      requireTLS: false,
      authMethod: 'LOGIN',
    }).sendMail({ from: FROM, to, subject: 'Over TLS', text: 'Only text, https://example.com/plain\n' });
    const [id] = acceptedIds(info.response);
    const parsed = await parse((await deliveredMessage(mail.sink, id!)).raw);
    expect(parsed.text).toBe('Only text, https://example.com/plain\n');
    expect(parsed.html).toBeFalsy();
    expect(await expectBody(main.api.get(`/emails/${id}/content`))).toEqual({
      html: '',
      text: 'Only text, https://example.com/plain\n',
      headers: {},
    });
    expect((await verifyDkim((await deliveredMessage(mail.sink, id!)).raw, mail.dns)).results[0]!.status.result).toBe(
      'pass',
    );
  });

  it('X-Postbox-Type: HEADLESS sends the HTML as written; MARKETING skips a new contact, adds the links for a subscriber', async () => {
    const html = '<p>Exactly <a href="https://example.com/x">this</a></p>';
    const headless = await submitter().sendMail({
      from: FROM,
      to: rcpt('headless'),
      subject: 'Headless',
      html,
      headers: { 'X-Postbox-Type': 'HEADLESS' },
    });
    const [id] = acceptedIds(headless.response);
    const parsed = await parse((await deliveredMessage(mail.sink, id!)).raw);
    // As written, up to the line break that ends the MIME part.
    expect((parsed.html as string).trimEnd()).toBe(html);
    // Without a text part of its own, it gets one made from the HTML, as /v1/send mail does.
    expect(parsed.text).toContain('Exactly this');
    expect(parsed.headers.has('x-postbox-type')).toBe(false);
    expect((await emailRecord(main.api, id!)).type).toBe('HEADLESS');

    const newcomer = rcpt('marketing');
    const marketing = await submitter().sendMail({
      from: FROM,
      to: newcomer,
      subject: 'News',
      html: '<p>News</p>',
      headers: { 'X-Postbox-Type': 'marketing' },
    });
    const [skipped] = acceptedIds(marketing.response);
    expect(await emailRecord(main.api, skipped!)).toMatchObject({ type: 'MARKETING', status: 'skipped' });

    // A subscribed contact gets it with the unsubscribe links, in the HTML and in its own text part.
    const subscriber = rcpt('subscriber');
    await expectBody(main.api.post('/contacts', { email: subscriber, subscribed: true }), 201);
    const news = await submitter().sendMail({
      from: FROM,
      to: subscriber,
      subject: 'News',
      text: 'News in text\n',
      html: '<p>News</p>',
      headers: { 'X-Postbox-Type': 'MARKETING' },
    });
    const [newsId] = acceptedIds(news.response);
    const raw = (await deliveredMessage(mail.sink, newsId!)).raw;
    expect(headerBlock(raw)).toMatch(/^List-Unsubscribe: <[^>]*\/unsubscribe\//m);
    const delivered = await parse(raw);
    expect(delivered.text).toMatch(/^News in text\n\n[\s\S]*\/unsubscribe\//);
    expect(delivered.html).toMatch(/\/unsubscribe\//);
  });

  it("X-Postbox-Track chooses what is tracked over the project's setting, and never leaves", async () => {
    const html = '<p>Read <a href="https://example.com/y">this</a></p>';
    const submit = async (headers: Record<string, string>) => {
      const sent = await submitter().sendMail({ from: FROM, to: rcpt('track'), subject: 'Tracked', html, headers });
      const raw = (await deliveredMessage(mail.sink, acceptedIds(sent.response)[0]!)).raw;
      const parsed = await parse(raw);
      expect(parsed.headers.has('x-postbox-track')).toBe(false);
      const out = parsed.html as string;
      return { opens: out.includes('/t/open/'), clicks: out.includes('/t/click/') };
    };
    expect(await submit({})).toEqual({ opens: true, clicks: true });
    expect(await submit({ 'X-Postbox-Track': 'clicks' })).toEqual({ opens: false, clicks: true });
    expect(await submit({ 'X-Postbox-Track': 'none' })).toEqual({ opens: false, clicks: false });
    expect(await submit({ 'X-Postbox-Type': 'HEADLESS', 'X-Postbox-Track': 'opens' })).toEqual({
      opens: true,
      clicks: false,
    });
  });
});

describe('refusals', () => {
  it('a suppressed recipient is stored as skipped and never sent; the others are', async () => {
    const suppressed = rcpt('suppressed');
    const kept = rcpt('kept');
    await expectBody(main.api.post('/suppressions', { email: suppressed }), 201);
    const info = await submitter().sendMail({ from: FROM, to: [suppressed, kept], subject: 'Hi', text: 'Hi\n' });
    const [skippedId, keptId] = acceptedIds(info.response);
    await deliveredMessage(mail.sink, keptId!);
    expect(await emailRecord(main.api, skippedId!)).toMatchObject({ status: 'skipped', to: suppressed });
    expect(sinkMessagesTo(mail.sink, suppressed)).toHaveLength(0);
  });

  it('a wrong key is 535; the user name plays no part', async () => {
    const err = await failure(submitter({}, `sk_${randomBytes(24).toString('hex')}`).verify());
    expect(err.responseCode).toBe(535);
    const publicKey = await failure(submitter({}, main.publicKey).verify());
    expect(publicKey.responseCode).toBe(535);
    expect(await submitter({ auth: { user: 'someone-else', pass: main.secretKey } }).verify()).toBe(true);
  });

  it('AUTH before STARTTLS is refused (538) when insecure AUTH is not allowed', async () => {
    const err = await failure(submitter({ ignoreTLS: true, requireTLS: false }).verify());
    expect(err.responseCode).toBe(538);
  });

  it('550 with the reason for a sender domain that is not registered, or not verified; nothing stored', async () => {
    const to = rcpt('unverified');
    const unregistered = await failure(
      submitter().sendMail({ from: 'x@elsewhere.submission.test', to, subject: 's', text: 't' }),
    );
    expect(unregistered.responseCode).toBe(550);
    expect(unregistered.response).toMatch(/5\.7\.1 .*elsewhere\.submission\.test is not registered to this project/);

    await expectBody(main.api.post('/domains', { domain: 'pending.submission.test' }), 201);
    const pending = await failure(
      submitter().sendMail({ from: 'x@pending.submission.test', to, subject: 's', text: 't' }),
    );
    expect(pending.responseCode).toBe(550);
    expect(pending.response).toMatch(/registered to this project but not verified/);
    const page = await expectBody(main.api.get(`/contacts?search=${encodeURIComponent(to)}`));
    expect(page.data).toHaveLength(0);
  });

  it('drops every Resent-* header, so a message cannot claim to be re-sent by another project’s domain', async () => {
    // Another project, with a verified domain of its own, names the main project's domain.
    const other = await projectWithDomain(mail, 'submission-resent', 'resent.submission.test');
    const to = rcpt('resent');
    const info = await submitter({}, other.secretKey).sendMail({
      from: 'app@resent.submission.test',
      to,
      subject: 'Forwarded',
      text: 't',
      headers: {
        'Resent-From': `hello@${DOMAIN}`,
        'Resent-Sender': `hello@${DOMAIN}`,
        'Resent-Reply-To': `hello@${DOMAIN}`,
        'Resent-Date': 'Fri, 27 Nov 2026 10:00:00 +0000',
        'Resent-To': to,
        'Resent-Message-ID': `<resent@${DOMAIN}>`,
        'X-Kept': 'yes',
      },
    });
    const [id] = acceptedIds(info.response);
    const block = headerBlock((await deliveredMessage(mail.sink, id!)).raw);
    expect(block).not.toMatch(/^Resent-/im);
    expect(block).not.toContain(DOMAIN);
    expect(block).toMatch(/^X-Kept: yes$/m);
    expect(block).toMatch(/^From: app@resent\.submission\.test$/m);

    // /v1/send refuses them as it refuses Sender: the service writes who sends.
    const refused = await other.api.post('/v1/send', {
      from: 'app@resent.submission.test',
      to,
      subject: 's',
      body: '<p>t</p>',
      headers: { 'Resent-From': `hello@${DOMAIN}` },
    });
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(refused.body.error.errors).toEqual([
      expect.objectContaining({ field: 'headers.Resent-From', code: 'reserved_header' }),
    ]);
  });

  it('more than 50 recipients: the 51st is refused with 452, the 50 others are sent', async () => {
    const recipients = Array.from({ length: 51 }, (_, i) => rcpt(`many-${i}`));
    const info = await submitter().sendMail({ from: FROM, to: recipients, subject: 'Many', text: 'Hello\n' });
    expect(info.rejected).toEqual([recipients[50]]);
    expect((info.rejectedErrors ?? []).map((e) => (e as SmtpFailure).responseCode)).toEqual([452]);
    expect(acceptedIds(info.response)).toHaveLength(50);
  });

  it('552 for a message over 40 MB and for attachments over 10 MB together', async () => {
    const huge = await failure(
      submitter().sendMail({
        from: FROM,
        to: rcpt('huge'),
        subject: 'Huge',
        text: 'x',
        attachments: [{ filename: 'big.bin', content: Buffer.alloc(31 * 1024 * 1024, 1) }],
      }),
    );
    expect(huge.responseCode).toBe(552);

    const attached = await failure(
      submitter().sendMail({
        from: FROM,
        to: rcpt('attached'),
        subject: 'Attached',
        text: 'x',
        attachments: [{ filename: 'eleven.bin', content: Buffer.alloc(11 * 1024 * 1024, 2) }],
      }),
    );
    expect(attached.responseCode).toBe(552);
    expect(attached.response).toMatch(/5\.3\.4 .*Attachments total/);
  });

  it('malformed or unusable MIME is a clear 5xx, never a hang', async () => {
    const send = (raw: string | Buffer) =>
      failure(submitter().sendMail({ envelope: { from: FROM, to: [rcpt('raw')] }, raw }));
    const longHeader = await send(`From: ${FROM}\r\nSubject: s\r\nX-Long: ${'a'.repeat(1_100_000)}\r\n\r\nbody\r\n`);
    expect(longHeader.responseCode).toBe(552);
    expect(longHeader.response).toMatch(/5\.3\.4 Message refused/);

    const noSubject = await send(`From: ${FROM}\r\nTo: someone@rcpt.submission.test\r\n\r\nbody\r\n`);
    expect(noSubject.responseCode).toBe(550);
    expect(noSubject.response).toMatch(/5\.6\.0 .*no Subject/);

    const garbage = await send(randomBytes(20_000));
    expect([550, 554]).toContain(garbage.responseCode);
    expect(garbage.response).toMatch(/5\.6\.0 Message refused/);

    const badType = await send(`From: ${FROM}\r\nSubject: s\r\nX-Postbox-Type: bulk\r\n\r\nbody\r\n`);
    expect(badType.responseCode).toBe(550);
    expect(badType.response).toMatch(/X-Postbox-Type must be TRANSACTIONAL, MARKETING or HEADLESS/);

    const badTrack = await send(`From: ${FROM}\r\nSubject: s\r\nX-Postbox-Track: yes\r\n\r\nbody\r\n`);
    expect(badTrack.responseCode).toBe(550);
    expect(badTrack.response).toMatch(/X-Postbox-Track must be "none" or "opens", "clicks" or both/);
  });

  it('the project’s rate limit, shared with its API requests, is a 451 4.7.1', async () => {
    const limited = await projectWithDomain(mail, 'submission-rate', 'rate.submission.test');
    // Spend the project's budget (300 per minute here) with API requests.
    for (let spent = 0; spent < 300; spent += 50)
      await Promise.all(Array.from({ length: 50 }, () => limited.api.get('/emails?limit=1')));
    const err = await failure(
      submitter({}, limited.secretKey).sendMail({
        from: 'app@rate.submission.test',
        to: rcpt('rate'),
        subject: 's',
        text: 't',
      }),
    );
    expect(err.responseCode).toBe(451);
    expect(err.response).toMatch(/4\.7\.1 Rate limit of 300 requests per minute exceeded/);
  });
});

describe('a service killed right after its 250', () => {
  const peers = useChildPeers();
  let service: ChildServer | undefined;
  afterAll(() => service?.kill());

  it('delivers the accepted message after a restart, exactly once; SIGTERM then stops it cleanly', async () => {
    const port = await freePort();
    const childEnv = peers.env({ SUBMISSION_SMTP_PORT: String(port), SUBMISSION_ALLOW_INSECURE_AUTH: 'true' });
    service = await spawnService(childEnv);
    const { secretKey } = printedKeys(service.output());
    await verifiedDomain(client(service.url, secretKey), peers.dns, 'crash.submission.test');

    // The relay is down: nothing can leave before the kill, so the restart has to deliver it.
    await peers.sink.stop();
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port,
      ignoreTLS: true,
      auth: { user: 'app', pass: secretKey },
    });
    const info = await transport.sendMail({
      from: 'app@crash.submission.test',
      to: 'someone@rcpt.submission.test',
      subject: 'Survives',
      text: 'Accepted means kept.\n',
    });
    transport.close();
    const [id] = acceptedIds(info.response);
    await service.kill('SIGKILL');

    await peers.sink.start();
    service = await spawnService(childEnv);
    const api = client(service.url, secretKey);
    await deliveredMessage(peers.sink, id!, 30_000);
    await eventually(async () => ((await emailRecord(api, id!)).status === 'sent' ? true : undefined));
    expect(sinkMessagesFor(peers.sink, id!)).toHaveLength(1);

    // An idle client connection does not hold the stop back: it is told 421 and closed.
    const idle = net.connect(port, '127.0.0.1');
    let heard = '';
    idle.on('data', (d) => (heard += d));
    await eventually(async () => (heard.startsWith('220') ? true : undefined));
    await service.kill('SIGTERM');
    await eventually(async () => (idle.closed ? true : undefined));
    expect(heard).toMatch(/421/);
    expect(service.process.exitCode).toBe(0);
  });
});
