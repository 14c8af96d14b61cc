/**
 * Outbound HTTP requests to user-given URLs, signed the Standard Webhooks way:
 *
 *   webhook-id: <message id, the same on every retry>      webhook-timestamp: <unix seconds>
 *   webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>" keyed with the secret>
 *
 * The secret is `whsec_<base64 key>`. Private, loopback and link-local addresses are refused unless
 * the operator allows them: the check runs on the address actually connected to (a custom DNS
 * lookup), so a name that resolves to an internal address later cannot slip through. Redirects
 * are not followed.
 */
import { createHmac, randomBytes } from 'node:crypto';
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';

export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

export function webhookSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** A failed request; `temporary` ones (timeouts, refused connections, 408, 429, 5xx) are worth retrying. */
export class WebhookError extends Error {
  override name = 'WebhookError';
  constructor(
    message: string,
    readonly temporary: boolean,
    readonly status?: number,
  ) {
    super(message);
  }
}

const PRIVATE = new net.BlockList();
for (const [net4, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  PRIVATE.addSubnet(net4, bits, 'ipv4');
}
for (const [net6, bits] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(net6, bits, 'ipv6');
}

/** Loopback, private, link-local, carrier-grade NAT, multicast and unspecified addresses (IPv4-mapped ones too). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4');
  const family = net.isIP(address);
  if (family === 0) return true;
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

const privateRefusal = (host: string) =>
  new WebhookError(`${host} is a private or loopback address; webhooks to it are not allowed`, false);

function guardedLookup(allowPrivate: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as dns.LookupAddress[];
      const refused = allowPrivate ? undefined : list.find((a) => isPrivateAddress(a.address));
      if (refused) return callback(privateRefusal(`${hostname} (${refused.address})`) as NodeJS.ErrnoException, '', 0);
      if ((options as dns.LookupAllOptions).all)
        return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

export interface WebhookRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  /** The JSON text sent (empty for GET). */
  body: string;
  /** `webhook-id`: the same on every retry of one message, so receivers can drop duplicates. */
  id: string;
  secret: string;
  timeoutMs: number;
  allowPrivate: boolean;
}

const MAX_RESPONSE_BYTES = 16 * 1024;

/** Sends one request; resolves with a 2xx answer, rejects with a WebhookError otherwise. */
export function sendWebhook(req: WebhookRequest, now = Date.now()): Promise<{ status: number; body: string }> {
  const url = new URL(req.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) && !req.allowPrivate && isPrivateAddress(host)) return Promise.reject(privateRefusal(host));
  const timestamp = Math.floor(now / 1000);
  const headers: Record<string, string> = {
    'user-agent': 'postbox-webhooks/1',
    ...(req.body ? { 'content-type': 'application/json' } : {}),
    ...req.headers,
    'webhook-id': req.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': webhookSignature(req.secret, req.id, timestamp, req.body),
  };
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(
      url,
      { method: req.method, headers, lookup: guardedLookup(req.allowPrivate) },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < MAX_RESPONSE_BYTES) chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', () => {
          clearTimeout(timer);
          const status = res.statusCode ?? 0;
          const body = Buffer.concat(chunks).toString('utf8').slice(0, MAX_RESPONSE_BYTES);
          if (status >= 200 && status < 300) return resolve({ status, body });
          const temporary = status === 408 || status === 429 || status >= 500;
          reject(new WebhookError(`${req.method} ${url.origin}${url.pathname} answered ${status}`, temporary, status));
        });
        res.on('error', (err) => reject(new WebhookError(err.message, true)));
      },
    );
    const timer = setTimeout(
      () => request.destroy(new WebhookError(`No answer within ${req.timeoutMs} ms`, true)),
      req.timeoutMs,
    );
    request.on('error', (err) => {
      clearTimeout(timer);
      reject(err instanceof WebhookError ? err : new WebhookError(err.message, true));
    });
    request.end(req.body || undefined);
  });
}
