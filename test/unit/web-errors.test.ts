import { describe, expect, it } from 'vitest';
import { ApiError, fieldMessages, formMessage, parseApiError } from '../../web/src/api/errors.js';

describe('the dashboard reads API errors', () => {
  it('takes code, message, suggestion and field errors from the standard envelope', () => {
    const e = parseApiError(422, {
      success: false,
      error: {
        code: 'VALIDATION_ERROR',
        message: 'Request validation failed',
        statusCode: 422,
        requestId: 'r1',
        details: {},
        suggestion: 'Correct the fields listed in errors and send the request again.',
        errors: [
          { field: 'domain', message: 'Must be a full domain name such as example.com', code: 'invalid_string' },
          { field: 'domain', message: 'a second message for the same field', code: 'custom' },
          { field: 'name', code: 'too_big' },
        ],
      },
      timestamp: '2025-01-01T00:00:00.000Z',
    });
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ status: 422, code: 'VALIDATION_ERROR', message: 'Request validation failed' });
    expect(e.suggestion).toMatch(/Correct the fields/);
    expect(e.fieldErrors).toHaveLength(2);
    expect(fieldMessages(e.fieldErrors)).toEqual({ domain: 'Must be a full domain name such as example.com' });
  });

  it('reads the legacy `{ error }` shape and Fastify’s own errors', () => {
    expect(parseApiError(400, { error: 'email is required' })).toMatchObject({
      code: 'HTTP_400',
      message: 'email is required',
    });
    expect(
      parseApiError(400, { statusCode: 400, error: 'Bad Request', message: 'Body is not valid JSON' }).message,
    ).toBe('Body is not valid JSON');
  });

  it('never shows a body that is not an error object, only a sentence for the status', () => {
    for (const body of [undefined, '<html>Bad gateway</html>', ['x'], 42, null]) {
      const e = parseApiError(502, body);
      expect(e.message).toBe('Something went wrong on the server.');
      expect(e.code).toBe('HTTP_502');
    }
    expect(parseApiError(0, undefined)).toMatchObject({ code: 'NETWORK_ERROR', message: /Cannot reach the server/ });
    expect(parseApiError(429, { error: { code: 'RATE_LIMIT_EXCEEDED', message: '' } }).message).toMatch(/Too many/);
  });

  it('gives a form one message, without repeating what is shown beside its fields', () => {
    const placed = parseApiError(422, {
      error: {
        code: 'VALIDATION_ERROR',
        message: 'Request validation failed',
        errors: [{ field: 'email', message: 'Invalid email' }],
      },
    });
    expect(formMessage(placed, ['email', 'password'])).toBe('Check the highlighted fields.');
    expect(formMessage(placed, ['name'])).toBe('Request validation failed Invalid email');
    expect(
      formMessage(parseApiError(403, { error: { code: 'INVALID_SETUP_TOKEN', message: 'Wrong token' } }), []),
    ).toBe('Wrong token');
    expect(formMessage(null, [])).toBeNull();
    expect(formMessage(new Error('TypeError at line 3'), [])).toBe('Something went wrong on the server.');
  });
});
