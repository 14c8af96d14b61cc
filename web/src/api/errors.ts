/**
 * Turns whatever an API call answered into one error a page can show: the standard envelope, the
 * legacy `{ error }` shape of a few endpoints, Fastify's own errors, or no JSON at all (a proxy's
 * HTML page). Nothing of the raw body is ever shown; only its message strings.
 */

export interface FieldError {
  field: string;
  message: string;
  code: string;
  /** What the server received, as text, when it says (a workflow's faults name their steps here). */
  received?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fieldErrors: FieldError[] = [],
    readonly suggestion?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const FALLBACK_MESSAGES: Record<number, string> = {
  0: 'Cannot reach the server. Check your connection and try again.',
  401: 'Your session has ended. Sign in again.',
  403: 'You are not allowed to do this.',
  404: 'Not found.',
  409: 'This conflicts with something that already exists.',
  429: 'Too many requests. Wait a moment and try again.',
  503: 'The service is busy. Try again in a moment.',
};

export function fallbackMessage(status: number): string {
  return FALLBACK_MESSAGES[status] ?? (status >= 500 ? 'Something went wrong on the server.' : 'The request failed.');
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

function parseFieldErrors(raw: unknown): FieldError[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((e) => {
    if (!isRecord(e)) return [];
    const message = text(e.message);
    if (!message) return [];
    const received = text(e.received);
    return [
      {
        field: typeof e.field === 'string' ? e.field : '',
        message,
        code: text(e.code) ?? 'invalid',
        ...(received ? { received } : {}),
      },
    ];
  });
}

const codeFor = (status: number) => (status === 0 ? 'NETWORK_ERROR' : `HTTP_${status}`);

export function parseApiError(status: number, body: unknown): ApiError {
  if (isRecord(body) && isRecord(body.error)) {
    const e = body.error;
    return new ApiError(
      status,
      text(e.code) ?? codeFor(status),
      text(e.message) ?? fallbackMessage(status),
      parseFieldErrors(e.errors),
      text(e.suggestion),
    );
  }
  if (isRecord(body)) {
    // `{ error: "..." }` (legacy) or Fastify's `{ statusCode, error: "Bad Request", message }`.
    const message = text(body.message) ?? text(body.error) ?? fallbackMessage(status);
    return new ApiError(status, text(body.code) ?? codeFor(status), message);
  }
  return new ApiError(status, codeFor(status), fallbackMessage(status));
}

/** The first message per field, for showing beside inputs; a nested path is keyed by its full dot-path. */
export function fieldMessages(errors: readonly FieldError[]): Record<string, string> {
  const byField: Record<string, string> = {};
  for (const e of errors) if (e.field && !(e.field in byField)) byField[e.field] = e.message;
  return byField;
}

/**
 * What a form shows above its fields: the error's message, unless every field error is already
 * shown beside one of the form's own inputs and the message would only repeat "validation failed".
 */
export function formMessage(error: unknown, fields: readonly string[]): string | null {
  if (!error) return null;
  if (!(error instanceof ApiError)) return fallbackMessage(500);
  const unplaced = error.fieldErrors.filter((e) => !fields.includes(e.field));
  if (error.fieldErrors.length > 0 && unplaced.length === 0) return 'Check the highlighted fields.';
  if (unplaced.length > 0) return [error.message, ...unplaced.map((e) => e.message)].join(' ');
  return error.message;
}

export const errorMessage = (error: unknown): string =>
  error instanceof ApiError ? error.message : fallbackMessage(500);
