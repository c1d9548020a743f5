import { ERROR_CODES, type ErrorCode } from './error-codes';
import type { FieldError } from './problem';

export interface ProblemErrorOptions {
  /** `{field, message}` pairs, for `validation_failed`. */
  errors?: FieldError[];
  /** Extra response headers, such as `Retry-After` or `WWW-Authenticate`. */
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * The one base class of every error the API answers on purpose: a stable code (SPEC §5), a sentence for the
 * user, and optionally field errors and headers. Each lib subclasses it (AuthError, StorageError,
 * ModelUnavailableError, ApiError, …); the server's exception filter turns any of them into problem+json with
 * one branch. Anything else that reaches the filter is a bug and answers `internal`.
 */
export class ProblemError extends Error {
  readonly fieldErrors: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    options: ProblemErrorOptions = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.fieldErrors = options.errors;
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }
}

/**
 * A mistake of whoever starts or operates the server (a bad setting, a taken port, an unreadable data
 * directory): the process stops with this one line, never a stack trace, and no client ever sees it.
 */
export class OperatorError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}
