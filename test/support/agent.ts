import type { ApiResponse } from './server.js';

/** Keeps the cookies a response sets in `jar`, and drops the ones it clears, as a browser does. */
export function keepCookies(jar: Map<string, string>, headers: Headers): void {
  for (const set of headers.getSetCookie()) {
    const [pair, ...attributes] = set.split(';');
    const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
    const cleared = value === '' || attributes.some((a) => /^\s*max-age=0\s*$/i.test(a));
    if (cleared) jar.delete(name);
    else jar.set(name, value);
  }
}

/** The `cookie` header of a jar's cookies. */
export const cookieHeader = (jar: Map<string, string>) => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');

/**
 * A browser as the API sees it: its own cookies (kept from Set-Cookie, dropped when cleared), its
 * own address (X-Forwarded-For, for a service started with TRUST_PROXY) and its own User-Agent.
 */
export class Agent {
  readonly cookies = new Map<string, string>();

  constructor(
    private readonly baseUrl: string,
    readonly ip: string,
    readonly userAgent = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0',
  ) {}

  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse<T>> {
    const cookie = cookieHeader(this.cookies);
    const res = await fetch(this.baseUrl + path, {
      method,
      headers: {
        'x-forwarded-for': this.ip,
        'user-agent': this.userAgent,
        ...(cookie ? { cookie } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    keepCookies(this.cookies, res.headers);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {}
    return { status: res.status, headers: res.headers, body: parsed as T };
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, undefined, headers);
  }
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, body, headers);
  }
  patch<T = any>(path: string, body?: unknown) {
    return this.request<T>('PATCH', path, body);
  }
  delete<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('DELETE', path, undefined, headers);
  }
}
