import { afterAll, beforeAll } from 'vitest';
import type { Domain } from '../../src/api.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { type DnsServer, startDnsServer } from './dns-server.js';
import { verifiedDomain } from './domains.js';
import { startTestServer, type TestProject, type TestServer } from './server.js';
import { type SmtpSink, startSmtpSink } from './smtp-sink.js';

/** A test server that relays to an SMTP sink and asks a loopback DNS server. */
export interface MailServer {
  dns: DnsServer;
  sink: SmtpSink;
  server: TestServer;
}

/**
 * Starts a DNS server, an SMTP sink and a test server using both, with `env` on top. If a part fails
 * to start, the parts already started are stopped.
 */
export async function startMailServer(env: Record<string, string> = {}): Promise<MailServer> {
  const parts: Partial<MailServer> = {};
  try {
    parts.dns = await startDnsServer();
    parts.sink = await startSmtpSink();
    parts.server = await startTestServer({ SMTP_URL: parts.sink.url, DNS_SERVERS: parts.dns.address, ...env });
    return parts as MailServer;
  } catch (err) {
    await stopMailServer(parts);
    throw err;
  }
}

/** Stops whichever parts of a mail server are there: the server first, then the sink, then the DNS server. */
export async function stopMailServer(parts: Partial<MailServer>): Promise<void> {
  await parts.server?.stop();
  await parts.sink?.stop();
  await parts.dns?.stop();
}

/**
 * A mail server for the tests of one file: started (with `env`) before them, stopped after them.
 * Its parts are there once the file's `beforeAll` hooks run.
 */
export function useMailServer(env: Record<string, string> = {}): MailServer {
  const mail = {} as MailServer;
  beforeAll(async () => {
    Object.assign(mail, await startMailServer(env));
  });
  afterAll(() => stopMailServer(mail));
  return mail;
}

/** A test server that asks a loopback DNS server (and relays nowhere unless `env` says so). */
export interface DnsBackedServer {
  dns: DnsServer;
  server: TestServer;
}

/** A DNS-backed test server for the tests of one file: started (with `env`) before them, stopped after them. */
export function useServerWithDns(env: Record<string, string> = {}): DnsBackedServer {
  const stack = {} as DnsBackedServer;
  beforeAll(async () => {
    stack.dns = await startDnsServer();
    stack.server = await startTestServer({ DNS_SERVERS: stack.dns.address, ...env });
  });
  afterAll(async () => {
    await stack.server?.stop();
    await stack.dns?.stop();
  });
  return stack;
}

/** A DNS server and an SMTP sink for the service a file runs in a child process (a dashboard's, say). */
export interface MailPeers {
  dns: DnsServer;
  sink: SmtpSink;
  /** The environment of a service using them (retries after 0.2 s), with `extra` on top. */
  env(extra?: Record<string, string>): Record<string, string>;
}

/** Mail peers for the tests of one file: started before them, stopped after them. */
export function useMailPeers(): MailPeers {
  const peers = {} as MailPeers;
  peers.env = (extra = {}) => ({
    SMTP_URL: peers.sink.url,
    DNS_SERVERS: peers.dns.address,
    DELIVERY_RETRY_BASE_SECONDS: '0.2',
    ...extra,
  });
  beforeAll(async () => {
    peers.dns = await startDnsServer();
    peers.sink = await startSmtpSink();
  });
  afterAll(async () => {
    await peers.sink?.stop();
    await peers.dns?.stop();
  });
  return peers;
}

/** Mail peers and a database for the services a file runs as child processes. */
export interface ChildPeers extends MailPeers {
  db: TestDatabase;
}

/** Child-service peers for the tests of one file: started before them, stopped after them. */
export function useChildPeers(): ChildPeers {
  const mail = useMailPeers();
  const peers = {} as ChildPeers;
  peers.env = (extra = {}) => ({ ...peers.db.env, ...mail.env(extra) });
  beforeAll(async () => {
    peers.db = await createTestDatabase();
    peers.dns = mail.dns;
    peers.sink = mail.sink;
  });
  afterAll(async () => {
    await peers.db?.drop();
  });
  return peers;
}

/** A new project of the server, with `domain` added, published in its DNS server and verified. */
export async function projectWithDomain(stack: DnsBackedServer, name: string, domain: string): Promise<TestProject> {
  return (await projectAndDomain(stack, name, domain))[0];
}

/** The same as `projectWithDomain`, with the verified domain's view (its records, its DKIM selector). */
export async function projectAndDomain(
  stack: DnsBackedServer,
  name: string,
  domain: string,
): Promise<[TestProject, Domain]> {
  const project = await stack.server.project(name);
  return [project, await verifiedDomain(project.api, stack.dns, domain)];
}
