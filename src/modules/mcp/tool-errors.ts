import { AppError, validationError } from '../../platform/http/errors.js';

/** A 422 for one argument, in the API's field-error shape. */
export const invalidArguments = (field: string, message: string) =>
  validationError([{ field, message, code: 'invalid_type', received: 'undefined' }]);

/**
 * A tool's failure as the model reads it: the API's error (code, message, field errors, suggestion),
 * so an agent can correct its call as a client corrects its request.
 */
export function toolError(
  err: unknown,
): { code: string; message: string; errors?: unknown; suggestion?: string } | null {
  if (!(err instanceof AppError)) return null;
  return {
    code: err.code,
    message: err.message,
    ...(err.options.errors ? { errors: err.options.errors } : {}),
    ...(err.options.suggestion ? { suggestion: err.options.suggestion } : {}),
  };
}
