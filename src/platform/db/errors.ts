/** The error and the causes it wraps (the ORM wraps the driver's), at most four deep: its code and message. */
export function* errorChain(err: unknown): Generator<{ code: string; message: string }> {
  let e: unknown = err;
  for (let depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    const { code, message, cause } = e as { code?: unknown; message?: unknown; cause?: unknown };
    yield { code: typeof code === 'string' ? code : '', message: typeof message === 'string' ? message : '' };
    e = cause;
  }
}

/** Postgres error code of a failed query. */
export function pgErrorCode(err: unknown): string | undefined {
  for (const { code } of errorChain(err)) if (/^[0-9A-Z]{5}$/.test(code)) return code;
  return undefined;
}

export const isUniqueViolation = (err: unknown) => pgErrorCode(err) === '23505';
