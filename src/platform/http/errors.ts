import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { ZodIssue } from 'zod';
import { isDatabaseUnavailable, isTransientConflict } from '../db/client.js';
import { PoolBusyError } from '../untrusted/pool.js';

export interface FieldError {
  field: string;
  message: string;
  code: string;
  received?: unknown;
}

interface ErrorOptions {
  details?: Record<string, unknown>;
  suggestion?: string;
  errors?: FieldError[];
  /** Sent as the Retry-After header (a 503 or 429 the client should retry). */
  retryAfterSeconds?: number;
}

/** An error a client can act on; it leaves the service in the standard envelope. */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly options: ErrorOptions = {},
  ) {
    super(message);
  }
}

export const notFound = (what: string) => new AppError(404, 'NOT_FOUND', `${what} not found`);

export function validationError(errors: FieldError[]): AppError {
  return new AppError(422, 'VALIDATION_ERROR', 'Request validation failed', { errors });
}

/** 503 with Retry-After: a bounded queue of this process is full; the same request succeeds shortly. */
export function busy(message: string, retryAfterSeconds: number): AppError {
  return new AppError(503, 'SERVICE_UNAVAILABLE', message, {
    retryAfterSeconds,
    details: { retryAfterSeconds },
    suggestion:
      `Retry after ${retryAfterSeconds} seconds; ` +
      'with an Idempotency-Key, ' +
      'a retry never performs the work twice.',
  });
}

const SUGGESTIONS: Record<string, string> = {
  VALIDATION_ERROR: 'Correct the fields listed in errors and send the request again.',
  INVALID_API_KEY:
    'Send "Authorization: Bearer <key>" with the secret key (sk_) or, for /v1/track, the public key (pk_).',
  PROJECT_DISABLED: 'The project is disabled; ask its owner to enable it.',
  NOT_FOUND: 'Check the id or path; resources of other projects are not visible.',
  RATE_LIMIT_EXCEEDED: 'Wait for the number of seconds in Retry-After before sending more requests.',
  INVALID_JSON: 'Send a valid JSON body with Content-Type: application/json.',
  IDEMPOTENCY_KEY_REUSED: 'Use a new Idempotency-Key for a new request.',
  INTERNAL_SERVER_ERROR: 'Try again later; if it persists, contact support with the request id.',
};

export function errorBody(
  request: FastifyRequest,
  statusCode: number,
  code: string,
  message: string,
  options: ErrorOptions = {},
) {
  return {
    success: false as const,
    error: {
      code,
      message,
      statusCode,
      requestId: String(request.id),
      ...(options.errors ? { errors: options.errors } : {}),
      details: options.details ?? {},
      suggestion: options.suggestion ?? SUGGESTIONS[code] ?? 'Check the request against the API reference.',
    },
    timestamp: new Date().toISOString(),
  };
}

function valueAt(input: unknown, path: (string | number)[]): unknown {
  let value: unknown = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string | number, unknown>)[key];
  }
  return value;
}

export function fieldErrorsFromIssues(
  issues: ZodIssue[],
  input: unknown,
  prefix: (string | number)[] = [],
): FieldError[] {
  return issues.map((issue) => {
    const path = [...prefix, ...issue.path];
    const received = issue.code === 'invalid_type' ? issue.received : valueAt(input, issue.path);
    // A refinement may name its own code (such as `reserved_header`) in its params.
    const code = issue.code === 'custom' && typeof issue.params?.code === 'string' ? issue.params.code : issue.code;
    const error: FieldError = { field: path.join('.'), message: issue.message, code };
    if (received !== undefined) error.received = truncate(received);
    return error;
  });
}

/** Echoing a multi-megabyte value back in an error helps nobody. */
function truncate(value: unknown): unknown {
  if (typeof value === 'string' && value.length > 200) return `${value.slice(0, 200)}…`;
  if (value !== null && typeof value === 'object') return Array.isArray(value) ? '[array]' : '[object]';
  return value;
}

function isMissingRequired(issue: ZodIssue, fields: string[]): boolean {
  if (issue.path.length === 0) return true;
  return (
    issue.path.length === 1 &&
    fields.includes(String(issue.path[0])) &&
    issue.code === 'invalid_type' &&
    issue.received === 'undefined'
  );
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Required body fields whose absence answers the legacy `{ error }` 400 (docs/api-rules.md#legacy-400). */
    legacyRequired?: string[];
  }
}

const JSON_BODY_ERRORS = new Set(['FST_ERR_CTP_INVALID_JSON_BODY', 'FST_ERR_CTP_EMPTY_JSON_BODY']);

const STATUS_CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

const UNAVAILABLE_RETRY_SECONDS = 5;

export function handleError(error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof PoolBusyError) error = busy(error.message, error.retryAfterSeconds);
  if (error instanceof AppError) {
    if (error.options.retryAfterSeconds !== undefined)
      reply.header('retry-after', String(error.options.retryAfterSeconds));
    return reply
      .status(error.statusCode)
      .send(errorBody(request, error.statusCode, error.code, error.message, error.options));
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const context = (error as FastifyError).validationContext ?? 'body';
    const issues = error.validation.map((v) => v.params.issue);
    const legacy = request.routeOptions.config?.legacyRequired;
    if (legacy && context === 'body') {
      const missing = issues.find((i) => isMissingRequired(i, legacy));
      if (missing) {
        const field = missing.path.length === 1 ? String(missing.path[0]) : legacy.join(', ');
        return reply.status(400).send({ error: `Missing required field: ${field}` });
      }
    }
    const input =
      context === 'body'
        ? request.body
        : context === 'querystring'
          ? request.query
          : context === 'params'
            ? request.params
            : request.headers;
    return reply.status(422).send(
      errorBody(request, 422, 'VALIDATION_ERROR', 'Request validation failed', {
        errors: fieldErrorsFromIssues(issues, input),
      }),
    );
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const code = JSON_BODY_ERRORS.has(error.code) ? 'INVALID_JSON' : (STATUS_CODES[status] ?? 'BAD_REQUEST');
    return reply.status(status).send(errorBody(request, status, code, error.message));
  }
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error }, 'database unavailable');
    reply.header('retry-after', String(UNAVAILABLE_RETRY_SECONDS));
    return reply.status(503).send(
      errorBody(request, 503, 'SERVICE_UNAVAILABLE', 'The database is unavailable or did not answer in time', {
        details: { dependency: 'database' },
        suggestion:
          `Retry after ${UNAVAILABLE_RETRY_SECONDS} seconds; ` +
          'with an Idempotency-Key, a retry never performs the work twice.',
      }),
    );
  }
  if (isTransientConflict(error)) {
    request.log.warn({ err: error }, 'transaction lost to a concurrent one');
    reply.header('retry-after', '1');
    return reply.status(503).send(
      errorBody(request, 503, 'SERVICE_UNAVAILABLE', 'The request collided with a concurrent change and was undone', {
        details: { dependency: 'database' },
        suggestion: 'Retry after 1 second; nothing of this request was kept.',
      }),
    );
  }
  request.log.error({ err: error }, 'unhandled error');
  return reply.status(500).send(errorBody(request, 500, 'INTERNAL_SERVER_ERROR', 'An unexpected error occurred'));
}
