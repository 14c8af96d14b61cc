/**
 * What a script can tell from `postbox`'s exit status. Documented in docs/cli.md; a new failure
 * gets a new code rather than reusing one that means something else.
 */
export const EXIT = {
  ok: 0,
  /** Anything not listed below. */
  failed: 1,
  /** The command line is wrong: unknown command or flag, a missing argument, no URL or key. */
  usage: 2,
  /** The key was refused (401) or does not allow this (403). */
  auth: 3,
  /** What the command names does not exist (404). */
  notFound: 4,
  /** The service refused the request as given (400, 409, 413, 422): nothing was done. */
  rejected: 5,
  /** The service could not be reached, timed out, was rate limited or unavailable (429, 5xx): try again. */
  unavailable: 6,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure the CLI reports in one message and an exit code. */
export class CliError extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
    /** The service's error envelope, printed whole with --json. */
    readonly body?: unknown,
  ) {
    super(message);
  }
}

/** The exit code for an HTTP status the service answered with. */
export function exitCodeOf(status: number): ExitCode {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.notFound;
  if (status === 429 || status >= 500) return EXIT.unavailable;
  if (status >= 400) return EXIT.rejected;
  return EXIT.failed;
}
