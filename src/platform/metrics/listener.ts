import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Metrics } from './registry.js';

export interface MetricsListenerOptions {
  port: number;
  host: string;
  /** When set, a scrape must send `Authorization: Bearer <token>`. */
  token?: string;
}

export interface MetricsListener {
  /** Where `GET /metrics` answers, e.g. `http://127.0.0.1:9464/metrics`. */
  url: string;
  close(): Promise<void>;
}

/** A scrape gives up after this long rather than hold a connection (the database gauges are bounded well below it). */
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * `GET /metrics` on its own port, apart from the API: every role opens it (a worker serves no
 * HTTP otherwise), the API's port never shows it, and it can stay on a private interface.
 */
export async function startMetricsListener(
  metrics: Metrics,
  options: MetricsListenerOptions,
  log: Logger,
): Promise<MetricsListener> {
  const expected = options.token ? digest(`Bearer ${options.token}`) : undefined;
  const server = http.createServer(
    { requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: REQUEST_TIMEOUT_MS },
    (req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (path !== '/metrics') return answer(res, 404, 'Not found: metrics are at /metrics\n');
      if (req.method !== 'GET' && req.method !== 'HEAD')
        return answer(res, 405, 'Method not allowed\n', { allow: 'GET, HEAD' });
      if (expected && !timingSafeEqual(digest(req.headers.authorization ?? ''), expected)) {
        return answer(res, 401, 'Unauthorized: send Authorization: Bearer <METRICS_TOKEN>\n', {
          'www-authenticate': 'Bearer realm="metrics"',
        });
      }
      metrics.exposition().then(
        ({ contentType, body }) => answer(res, 200, req.method === 'HEAD' ? '' : body, { 'content-type': contentType }),
        (err) => {
          log.error({ err }, 'metrics: scrape failed');
          answer(res, 500, 'Collecting the metrics failed\n');
        },
      );
    },
  );
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => log.error({ err }, 'metrics listener error'));
  const { address, port } = server.address() as AddressInfo;
  const url = `http://${address.includes(':') ? `[${address}]` : address}:${port}/metrics`;
  log.info({ url, token: Boolean(expected) }, 'metrics listening');
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function answer(res: http.ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers, 'cache-control': 'no-store' });
  res.end(body);
}
