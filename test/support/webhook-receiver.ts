import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll } from 'vitest';

/** A real HTTP server on loopback that records the webhooks it receives and answers as told. */
export interface HookRequest {
  method: string;
  /** Path and query, as requested. */
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
export interface Receiver {
  url: string;
  requests: HookRequest[];
  /** Answers the next requests to `path` with these statuses, in order (a 3xx redirects to /redirected); 200 afterwards. */
  answer(path: string, ...statuses: number[]): void;
  to(path: string): HookRequest[];
  stop(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const requests: HookRequest[] = [];
  const queued = new Map<string, number[]>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '';
      requests.push({
        method: req.method ?? '',
        url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const status = queued.get(url)?.shift() ?? 200;
      const location = status >= 300 && status < 400 ? { location: '/redirected' } : {};
      res.writeHead(status, { 'content-type': 'text/plain', ...location }).end(status < 300 ? 'ok' : 'not ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answer: (path, ...statuses) => queued.set(path, [...(queued.get(path) ?? []), ...statuses]),
    to: (path) => requests.filter((r) => r.url === path),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Standard Webhooks: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the base64 secret after `whsec_`. */
export function signatureValid(secret: string, r: HookRequest): boolean {
  const id = r.headers['webhook-id'];
  const timestamp = r.headers['webhook-timestamp'];
  const signatures = r.headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${r.body}`).digest();
  return signatures.split(' ').some((signature) => {
    const [version, value] = signature.split(',');
    const given = Buffer.from(value ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** A receiver for the tests of one file: started before them, stopped after them. */
export function useReceiver(): Receiver {
  const receiver = {} as Receiver;
  beforeAll(async () => {
    Object.assign(receiver, await startReceiver());
  });
  afterAll(() => receiver.stop?.());
  return receiver;
}
