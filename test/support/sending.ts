import { Resolver } from 'node:dns/promises';
import type { DKIMVerifyResult } from 'mailauth';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, expect } from 'vitest';
import type { EmailRecord } from '../../src/api.js';
import { type DnsServer, startDnsServer } from './dns-server.js';
import { type Client, eventually, expectBody, pollUntil, type TestServer } from './server.js';
import { type ReceivedMessage, type SmtpSink, startSmtpSink } from './smtp-sink.js';

/**
 * An SMTP sink to relay to and a DNS server to verify sender domains against, started before the
 * file's tests (register it before the service that reads their addresses) and stopped after them.
 */
export function useSinkAndDns(): { sink: SmtpSink; dns: DnsServer } {
  const parts = {} as { sink: SmtpSink; dns: DnsServer };
  beforeAll(async () => {
    parts.sink = await startSmtpSink();
    parts.dns = await startDnsServer();
  });
  afterAll(async () => {
    await parts.sink?.stop();
    await parts.dns?.stop();
  });
  return parts;
}

export interface SendResult {
  emails: { contact: { id: string; email: string }; email: string }[];
  timestamp: string;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A well-formed id that names nothing. */
export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** POST /v1/send that must succeed; returns `data`. */
export async function sendOk(api: Client, body: unknown, headers?: Record<string, string>): Promise<SendResult> {
  const res = await api.request('POST', '/v1/send', { body, headers });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

export async function emailRecord(api: Client, id: string): Promise<EmailRecord> {
  return expectBody(api.get(`/emails/${id}`));
}

/** Polls `GET /emails/{id}` until `done(record)` holds. */
export function recordWhen(
  api: Client,
  id: string,
  done: (r: EmailRecord) => boolean,
  timeoutMs = 15_000,
): Promise<EmailRecord> {
  return pollUntil(() => emailRecord(api, id), done, timeoutMs);
}

/** POST /v1/send of one message that must succeed, then its record once it says sent. */
export async function sentRecord(api: Client, body: unknown): Promise<EmailRecord> {
  const id = (await sendOk(api, body)).emails[0]!.email;
  return recordWhen(api, id, (r) => r.status === 'sent');
}

/** The unfolded header block of a raw message (everything before the first empty line). */
export function headerBlock(raw: Buffer): string {
  const text = raw.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  return (end === -1 ? text : text.slice(0, end)).replace(/\r\n[ \t]+/g, ' ');
}

export function messageIdOf(raw: Buffer): string | undefined {
  return /^Message-ID:\s*(<[^>\s]+>)/im.exec(headerBlock(raw))?.[1];
}

/** Messages the sink accepted whose Message-ID is the one the service gives email record `emailId`. */
export function sinkMessagesFor(sink: SmtpSink, emailId: string): ReceivedMessage[] {
  return sink.messages.filter((m) => messageIdOf(m.raw)?.startsWith(`<${emailId}@`));
}

/** Waits for the message of email record `emailId` at the sink and returns it. */
export function deliveredMessage(sink: SmtpSink, emailId: string, timeoutMs = 15_000): Promise<ReceivedMessage> {
  return eventually(async () => sinkMessagesFor(sink, emailId)[0], timeoutMs, 25);
}

/** Every message the sink accepted for an envelope recipient. */
export function sinkMessagesTo(sink: SmtpSink, address: string): ReceivedMessage[] {
  return sink.messages.filter((m) => m.to.includes(address));
}

/** Verifies the DKIM signatures of a raw message against the keys published in the loopback DNS server. */
export function verifyDkim(raw: Buffer | string, dns: DnsServer): Promise<DKIMVerifyResult> {
  const resolver = new Resolver();
  resolver.setServers([dns.address]);
  return dkimVerify(raw, { resolver: (name: string, rr: string) => resolver.resolve(name, rr) as Promise<any> });
}

/** The selector of a domain view: the first label of its DKIM record's name. */
export function selectorOf(view: { records: { purpose: string; name: string }[] }): string {
  return view.records.find((r) => r.purpose === 'dkim')!.name.split('.')[0]!;
}

/** The tracking pixel (there must be one) and click links of a message's HTML, as URLs of the running test server. */
export function trackingLinks(server: TestServer, html: string): { pixel: string; clicks: string[] } {
  const publicUrl = server.service.ctx.config.publicUrl;
  const local = (u: string) => server.url + u.replace(/&amp;/g, '&').slice(publicUrl.length);
  const clicks = [...html.matchAll(/href="([^"]+)"/g)]
    .map((m) => m[1]!)
    .filter((h) => h.startsWith(`${publicUrl}/t/click/`));
  const pixel = [...html.matchAll(/<img[^>]+src="([^"]+)"/g)]
    .map((m) => m[1]!)
    .find((src) => src.startsWith(`${publicUrl}/t/open/`));
  expect(pixel, html).toBeDefined();
  return { pixel: local(pixel!), clicks: clicks.map(local) };
}

/** A maker of addresses no other call of it gives: `<tag>-<n>@<domain>`. */
export function uniqueAddresses(domain: string): (tag: string) => string {
  let n = 0;
  return (tag) => `${tag}-${++n}@${domain}`;
}

/** Delivers a raw message over SMTP to the test server's inbound listener; resolves with the SMTP client's report. */
export async function sendInbound(server: TestServer, envelope: { from: string; to: string[] }, raw: string) {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: server.service.inboundSmtpPort!,
    secure: false,
    ignoreTLS: true,
  });
  try {
    return await transport.sendMail({ envelope, raw });
  } finally {
    transport.close();
  }
}
