import { CliError, EXIT, exitCodeOf } from './exit-codes.js';

/** Where the instance is and the project key to use: flags first, then POSTBOX_URL and POSTBOX_KEY. */
export interface Connection {
  url: string;
  key: string;
}

const TIMEOUT_MS = 60_000;

/** One request to the instance's API; a refusal becomes a CliError with the exit code of its status. */
export class ApiClient {
  constructor(private readonly connection: Connection) {}

  get url(): string {
    return this.connection.url;
  }

  get key(): string {
    return this.connection.key;
  }

  async request<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<T> {
    const res = await this.fetch(method, path, {
      headers: {
        ...headers,
        ...(body === undefined || body instanceof FormData ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {}
    if (!res.ok) throw refusal(res.status, parsed);
    return parsed as T;
  }

  get = <T = unknown>(path: string) => this.request<T>('GET', path);
  post = <T = unknown>(path: string, body?: unknown, headers?: Record<string, string>) =>
    this.request<T>('POST', path, body ?? {}, headers);
  patch = <T = unknown>(path: string, body: unknown) => this.request<T>('PATCH', path, body);

  private async fetch(method: string, path: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(new URL(path, this.connection.url), {
        ...init,
        method,
        headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${this.connection.key}` },
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      const why = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      throw new CliError(EXIT.unavailable, `Could not reach ${this.connection.url}: ${why}`);
    }
  }
}

function refusal(status: number, body: unknown): CliError {
  const error = (body as { error?: unknown } | null)?.error;
  const envelope = typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : undefined;
  const fields = Array.isArray(envelope?.errors)
    ? (envelope.errors as { field: string; message: string }[]).map((e) => `\n  ${e.field}: ${e.message}`).join('')
    : '';
  const message = envelope?.message ?? (typeof error === 'string' ? error : `HTTP ${status}`);
  return new CliError(
    exitCodeOf(status),
    `${message} (${status}${envelope?.code ? ` ${envelope.code}` : ''})${fields}`,
    body,
  );
}
