import { Resolver } from 'node:dns/promises';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import type { DKIMVerifyResult } from 'mailauth';
import { expect } from 'vitest';
import type { DnsServer } from './dns-server.js';
import { eventually, type Client } from './server.js';
import type { ReceivedMessage, SmtpSink } from './smtp-sink.js';

/** An email record as `GET /emails/{id}` returns it. */
export interface EmailRecord {
  id: string;
  projectId: string;
  contactId: string | null;
  templateId: string | null;
  campaignId: string | null;
  type: 'TRANSACTIONAL' | 'MARKETING' | 'HEADLESS';
  status: 'queued' | 'sent' | 'failed' | 'skipped' | 'bounced';
  from: string;
  fromName: string | null;
  to: string;
  toName: string | null;
  replyTo: string | null;
  subject: string;
  messageId: string;
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  smtpResponse: string | null;
  sentAt: string | null;
  failedAt: string | null;
  openedAt: string | null;
  clickedAt: string | null;
  bouncedAt: string | null;
  bounceType: 'hard' | 'soft' | null;
  complainedAt: string | null;
  openCount: number;
  clickCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface SendResult {
  emails: { contact: { id: string; email: string }; email: string }[];
  timestamp: string;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** POST /v1/send that must succeed; returns `data`. */
export async function sendOk(api: Client, body: unknown, headers?: Record<string, string>): Promise<SendResult> {
  const res = await api.request('POST', '/v1/send', { body, headers });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

export async function emailRecord(api: Client, id: string): Promise<EmailRecord> {
  const res = await api.get(`/emails/${id}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Polls `GET /emails/{id}` until `done(record)` holds. */
export function recordWhen(api: Client, id: string, done: (r: EmailRecord) => boolean, timeoutMs = 15_000): Promise<EmailRecord> {
  return eventually(async () => {
    const r = await emailRecord(api, id);
    return done(r) ? r : undefined;
  }, timeoutMs, 50);
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
