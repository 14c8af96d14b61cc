import { ApiError, parseApiError } from './errors.js';

type Query = Record<string, string | number | boolean | undefined | null>;

export interface RequestOptions {
  /** The project the request acts on, sent as X-Project-Id; resource endpoints need it. */
  projectId?: string | null;
  /** JSON, or a FormData sent as multipart/form-data (the browser sets its boundary). */
  body?: unknown;
  query?: Query;
  signal?: AbortSignal;
}

let onUnauthenticated: () => void = () => {};

/** Called when the session has ended, so the shell can show the sign-in page again. */
export function setUnauthenticatedHandler(handler: () => void): void {
  onUnauthenticated = handler;
}

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

async function readJson(response: Response): Promise<unknown> {
  const type = response.headers.get('content-type') ?? '';
  if (response.status === 204 || !type.includes('json')) return undefined;
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}

/** One call to the API with the session cookie; the secret key never reaches the browser. */
export async function api<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const form = options.body instanceof FormData ? options.body : null;
  if (options.body !== undefined && !form) headers['Content-Type'] = 'application/json';
  if (options.projectId) headers['X-Project-Id'] = options.projectId;

  let response: Response;
  try {
    response = await fetch(withQuery(path, options.query), {
      method,
      headers,
      credentials: 'same-origin',
      body: form ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
      signal: options.signal,
    });
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === 'AbortError') throw cause;
    throw parseApiError(0, undefined);
  }

  const body = await readJson(response);
  if (response.ok) return body as T;
  const error = parseApiError(response.status, body);
  // An ended session answers 401 everywhere (UNAUTHENTICATED, or INVALID_API_KEY on resources);
  // a 401 from /auth/* is a wrong password or token, shown on the form instead.
  if (response.status === 401 && !path.startsWith('/auth/')) onUnauthenticated();
  throw error;
}

export const isApiError = (e: unknown, status?: number): e is ApiError =>
  e instanceof ApiError && (status === undefined || e.status === status);
