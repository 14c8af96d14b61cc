import { createHash } from 'node:crypto';
import { simpleParser } from 'mailparser';
import { expect } from 'vitest';
import type { DnsServer } from './dns-server.js';
import type { ReceivedMessage } from './smtp-sink.js';

/** Publishes a domain that receives mail, so the address checks of a form accept its addresses. */
export function publishMailDomain(dns: DnsServer, name: string): void {
  dns.set(name, 'NS', [`ns1.${name}`]);
  dns.set(name, 'MX', [{ exchange: `mx1.${name}`, priority: 10 }]);
  dns.set(name, 'A', ['192.0.2.10']);
}

/**
 * Solves a form's ALTCHA challenge (SHA-256 of salt + n) as the browser's script does, with Node's
 * hash for speed; the base64 payload a submission carries.
 */
export function solve(challenge: {
  algorithm: string;
  challenge: string;
  maxnumber: number;
  salt: string;
  signature: string;
}): string {
  let number = 0;
  while (
    createHash('sha256')
      .update(challenge.salt + number)
      .digest('hex') !== challenge.challenge
  ) {
    number++;
    if (number > challenge.maxnumber) throw new Error('challenge without solution');
  }
  const { algorithm, salt, signature } = challenge;
  return Buffer.from(JSON.stringify({ algorithm, challenge: challenge.challenge, number, salt, signature })).toString(
    'base64',
  );
}

/** The confirmation link of a confirmation email, on `baseUrl` (the test server's address). */
export async function confirmationLink(message: ReceivedMessage, publicUrl: string, baseUrl: string): Promise<string> {
  const parsed = await simpleParser(message.raw);
  const link = /href="([^"]+\/f\/confirm\/[^"]+)"/.exec(String(parsed.html))?.[1];
  expect(link, String(parsed.html)).toBeDefined();
  return baseUrl + link!.slice(publicUrl.length);
}
