import { expect } from 'vitest';
import type { Domain } from '../../src/api.js';
import type { DnsServer } from './dns-server.js';
import type { Client } from './server.js';

/** An MX record value as the API shows it (`10 mail.example.com`), in the DNS server's form. */
export function mxValue(value: string): { priority: number; exchange: string } {
  const [priority, exchange] = value.split(/\s+/);
  return { priority: Number(priority), exchange: exchange! };
}

/**
 * Publishes every record of a domain view in the loopback DNS server. Each replaces the records of
 * its name and type, so two projects verifying the same domain in one DNS server overwrite each
 * other's ownership record.
 */
export function publishRecords(dns: DnsServer, view: Domain): void {
  for (const record of view.records) {
    if (record.type === 'MX') dns.set(record.name, 'MX', [mxValue(record.value)]);
    else dns.set(record.name, 'TXT', [record.value]);
  }
}

/** Adds `domain` to the client's project, publishes its records, checks them; returns the verified view. */
export async function verifiedDomain(api: Client, dns: DnsServer, domain: string): Promise<Domain> {
  const created = await api.post('/domains', { domain });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  publishRecords(dns, created.body);
  const checked = await api.get(`/domains/${created.body.id}/verify`);
  expect(checked.status, JSON.stringify(checked.body)).toBe(200);
  expect(checked.body.verified, JSON.stringify(checked.body.records)).toBe(true);
  return checked.body;
}
