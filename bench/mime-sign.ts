/**
 * Building and DKIM-signing a campaign's message, in one process: nodemailer's streaming build and
 * signer (the delivery path) against the message built into one buffer by nodemailer and signed by
 * mailauth. Messages of a campaign's shape (about 14 KB of HTML with tracked links, its text part, the
 * headers of a MARKETING email) with distinct recipients and Message-IDs, an RSA-2048 key. Each
 * variant's output must verify with mailauth against the public key, and both must carry the same
 * message under the signature, or the run fails.
 *
 *   npx tsx bench/mime-sign.ts          BENCH_MESSAGES (10000), BENCH_ROUNDS (3)
 */
import crypto from 'node:crypto';
import { dkimSign } from 'mailauth/lib/dkim/sign.js';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { SendMailOptions } from 'nodemailer/lib/mailer';
import { type DkimKey, mailOptions, type OutgoingEmail, textFromHtml } from '../src/platform/mail/message.js';
import { messageBytes } from '../src/platform/mail/transport.js';
import { log, machineInfo, reportVerified, round, runBench, waitForQuiet } from './run.js';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Messages made (HTML and text part) ahead of each measured stretch, outside the measure. */
const CHUNK = 500;
/** Messages of each variant and round checked with mailauth's verifier. */
const VERIFIED_PER_ROUND = 20;
const WARM_UP = 300;

const DOMAIN = 'bench.example.com';
const SELECTOR = 'pbx1';
const PUBLIC_URL = 'https://mail.bench.example.com';

const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const dkimKey: DkimKey = { domain: DOMAIN, selector: SELECTOR, privateKey, returnPathVerified: true };
const dkimRecord = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;

/** The DNS of the signing domain, as mailauth asks it. */
async function resolver(name: string, rr: string): Promise<string[][]> {
  if (rr === 'TXT' && name === `${SELECTOR}._domainkey.${DOMAIN}`) return [[dkimRecord]];
  throw Object.assign(new Error(`no ${rr} for ${name}`), { code: 'ENOTFOUND' });
}

const ARTICLES = [
  'Faster exports',
  'Events near you',
  'A new help centre',
  'Shared folders',
  'Two-step sign-in',
  'The mobile app',
];

/** A newsletter of about 14 KB: sections with links, each link tracked with the email's own URL. */
function campaignHtml(id: string, i: number): string {
  const click = (n: number, url: string) =>
    `${PUBLIC_URL}/t/click/${id}/${n}?url=${encodeURIComponent(url)}&amp;sig=${crypto.createHash('sha1').update(`${id}${n}`).digest('hex')}`;
  const sections = [];
  for (let s = 0; s < 18; s++) {
    const title = ARTICLES[s % ARTICLES.length]!;
    const url = `https://bench.example.com/blog/${s}-${title.toLowerCase().replace(/\W+/g, '-')}`;
    sections.push(`<tr><td style="padding: 12px 0; border-bottom: 1px solid #eee">
<h2 style="font-size: 17px; margin: 0 0 6px">${title}</h2>
<p style="margin: 0 0 8px; line-height: 1.5">Customer ${i}, this month brings ${title.toLowerCase()} to every plan. We rebuilt it
from the ground up after your feedback: it is quicker, it works on every device, and it keeps your settings as they were.</p>
<a href="${click(s, url)}" style="color: #0a6; font-weight: bold">Read more about ${title.toLowerCase()}</a></td></tr>`);
  }
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>News from Bench</title></head>
<body style="font-family: Helvetica, Arial, sans-serif; color: #222; margin: 0; padding: 0">
<table width="100%" cellpadding="0" cellspacing="0"><tr><td align="center">
<table width="600" cellpadding="16" cellspacing="0" style="border: 1px solid #eee">
<tr><td><h1 style="font-size: 22px">Hi Customer ${i},</h1><p>Here is what changed at Bench this month.</p></td></tr>
${sections.join('\n')}
<tr><td><p style="color: #888; font-size: 12px">Bench · 1 Example Street · 75000 Paris ·
<a href="${PUBLIC_URL}/unsubscribe/${id}">Unsubscribe</a></p></td></tr>
</table></td></tr></table>
<img src="${PUBLIC_URL}/t/open/${id}/pixel.gif" width="1" height="1" alt="">
</body></html>`;
}

function campaignEmail(i: number): OutgoingEmail {
  const id = crypto.randomUUID();
  const html = campaignHtml(id, i);
  return {
    messageId: `<${id}@${DOMAIN}>`,
    from: { email: `news@${DOMAIN}`, name: 'Bench News' },
    to: { email: `c${i}@d${i % 50}.example.net`, name: `Customer ${i}` },
    replyTo: null,
    subject: `Customer ${i}, what is new this month on your Pro plan`,
    html,
    text: textFromHtml(html),
    headers: {
      'List-Unsubscribe': `<${PUBLIC_URL}/unsubscribe/${id}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      Precedence: 'bulk',
      'Auto-Submitted': 'auto-generated',
    },
    attachments: [],
  };
}

/** nodemailer's MIME build, without a signature, as one buffer (CRLF lines, as the relay gets them). */
function unsignedBytes(options: SendMailOptions): Promise<Buffer> {
  return new MailComposer({ ...options, newline: 'windows' }).compile().build();
}

/** The unsigned message, signed by mailauth; the signature header goes in front. */
async function mailauthSigned(email: OutgoingEmail, key: string | crypto.KeyObject): Promise<Buffer> {
  const bytes = await unsignedBytes(mailOptions(email, null));
  // mailauth's signer reads the keys from `signatureData`; its types also ask for them at the top.
  const signature = { signingDomain: DOMAIN, selector: SELECTOR, privateKey: key as string };
  const { signatures, errors } = await dkimSign(bytes, {
    ...signature,
    canonicalization: 'relaxed/relaxed',
    signatureData: [signature],
  });
  const [error] = errors as unknown as { err?: Error }[];
  if (error) throw new Error(`mailauth could not sign: ${String(error.err ?? error)}`);
  return Buffer.concat([Buffer.from(signatures), bytes]);
}

type Variant = (email: OutgoingEmail) => Promise<Buffer>;

/** Not a candidate: the unsigned build alone, so the signers' shares can be told apart. */
const UNSIGNED = 'unsigned build';

const VARIANTS: Record<string, Variant> = {
  [UNSIGNED]: (email) => unsignedBytes(mailOptions(email, null)),
  /** The delivery path: nodemailer builds and signs in its stream (the key parsed once, as in the worker). */
  nodemailer: async (email) => (await messageBytes(mailOptions(email, dkimKey))).bytes,
  /** Built whole by nodemailer, signed by mailauth's `dkimSign` with the key as PEM (all it takes). */
  'buffer+mailauth': (email) => mailauthSigned(email, privateKeyPem),
};

/** The message under its signature: what both variants must produce alike. */
function withoutSignature(raw: Buffer): string {
  return raw.toString('latin1').replace(/^DKIM-Signature:.*\r\n(?:[ \t].*\r\n)*/i, '');
}

async function verifies(raw: Buffer): Promise<string | null> {
  const result = await dkimVerify(raw, { resolver: resolver as never });
  const statuses = result.results.map((r) => r.status.result);
  return statuses.length === 1 && statuses[0] === 'pass' ? null : `DKIM ${statuses.join(',') || 'none'}`;
}

/**
 * The RSA signature of a header block with the key parsed once, and with the PEM parsed for it (as
 * mailauth does for each message): a key just parsed also signs slower than one used before.
 */
function signingKeyCost(calls = 1000): { keyObjectUs: number; pemEachTimeUs: number } {
  const header = Buffer.alloc(400, 'a');
  const timed = (sign: () => void) => {
    const cpu = process.cpuUsage();
    for (let c = 0; c < calls; c++) sign();
    const used = process.cpuUsage(cpu);
    return round((used.user + used.system) / calls);
  };
  return {
    keyObjectUs: timed(() => crypto.sign('rsa-sha256', header, privateKey)),
    pemEachTimeUs: timed(() => crypto.sign('rsa-sha256', header, crypto.createPrivateKey(privateKeyPem))),
  };
}

runBench(async () => {
  const problems: string[] = [];

  // A KeyObject parsed once would spare the signer a PEM parse per message, if mailauth took one.
  let keyObjectAccepted = true;
  try {
    await mailauthSigned(campaignEmail(0), privateKey);
  } catch (err) {
    keyObjectAccepted = false;
    log(`mailauth does not take a KeyObject: ${(err as Error).message}`);
  }
  if (keyObjectAccepted) VARIANTS['buffer+mailauth(KeyObject)'] = (email) => mailauthSigned(email, privateKey);

  // The same message under both signatures, byte for byte (date and MIME boundaries fixed for the check).
  const sample = campaignEmail(1);
  const fixed = { date: new Date('2026-11-28T07:00:00Z'), baseBoundary: 'fixedboundary' };
  const viaNodemailer = (await messageBytes({ ...mailOptions(sample, dkimKey), ...fixed })).bytes;
  const viaBuffer = await unsignedBytes({ ...mailOptions(sample, null), ...fixed });
  if (withoutSignature(viaNodemailer) !== viaBuffer.toString('latin1')) {
    problems.push('the message under the signature differs between the variants');
  }
  const messageKiB = round(viaBuffer.length / 1024);
  const htmlKiB = round(sample.html.length / 1024);

  const names = Object.keys(VARIANTS);
  // Compiled and warmed before the first measure, so the first variant of round 1 is not charged for it.
  const warmUp = Array.from({ length: WARM_UP }, (_, k) => campaignEmail(k));
  for (const name of names) for (const email of warmUp) await VARIANTS[name]!(email);

  const cpuBusyBeforePct = await waitForQuiet();
  log(`machine ${cpuBusyBeforePct} % busy; ${MESSAGES} messages × ${ROUNDS} rounds × ${names.join(', ')}`);

  const rounds: Record<string, { cpuUsPerMessage: number; messagesPerSecond: number }>[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? names : [...names].reverse();
    const cpuUs = Object.fromEntries(names.map((n) => [n, 0]));
    const wallMs = Object.fromEntries(names.map((n) => [n, 0]));
    let checked = 0;
    for (let start = 0; start < MESSAGES; start += CHUNK) {
      const emails = Array.from({ length: Math.min(CHUNK, MESSAGES - start) }, (_, k) => campaignEmail(start + k));
      for (const name of order) {
        const variant = VARIANTS[name]!;
        const outputs: Buffer[] = [];
        const wall = performance.now();
        const cpu = process.cpuUsage();
        for (const email of emails) outputs.push(await variant(email));
        const used = process.cpuUsage(cpu);
        wallMs[name]! += performance.now() - wall;
        cpuUs[name]! += used.user + used.system;
        if (start === 0 && name !== UNSIGNED) {
          for (const raw of outputs.slice(0, VERIFIED_PER_ROUND)) {
            const problem = await verifies(raw);
            if (problem) problems.push(`${name}: ${problem}`);
          }
          checked = Math.max(checked, Math.min(VERIFIED_PER_ROUND, outputs.length));
        }
      }
    }
    const figures = Object.fromEntries(
      names.map((n) => [
        n,
        { cpuUsPerMessage: round(cpuUs[n]! / MESSAGES), messagesPerSecond: round((1000 * MESSAGES) / wallMs[n]!) },
      ]),
    );
    rounds.push(figures);
    log(`round ${r + 1} (${order.join(' then ')}; ${checked} of each verified): ${JSON.stringify(figures)}`);
  }

  const keyCost = signingKeyCost();
  log(`RSA signature of a DKIM header: ${JSON.stringify(keyCost)}`);

  const cpuRatio = (n: string) => rounds.map((f) => round(f[n]!.cpuUsPerMessage / f.nodemailer!.cpuUsPerMessage, 3));
  return reportVerified(
    {
      bench: 'mime-sign',
      messages: MESSAGES,
      rounds: ROUNDS,
      htmlKiB,
      messageKiB,
      keyObjectAccepted,
      keyCost,
      results: rounds,
      cpuRatioToNodemailer: Object.fromEntries(
        names.filter((n) => n !== 'nodemailer' && n !== UNSIGNED).map((n) => [n, cpuRatio(n)]),
      ),
      cpuBusyBeforePct,
      machine: machineInfo(),
      ok: problems.length === 0,
    },
    problems,
  );
});
