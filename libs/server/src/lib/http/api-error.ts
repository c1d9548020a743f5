import { ERROR_CODES, type ErrorCode, type FieldError } from '@assistant/contracts';

/** An error the API answers on purpose, with a stable code (SPEC §5). */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly fieldErrors?: FieldError[],
    /** Extra response headers, such as `Retry-After` or `WWW-Authenticate`. */
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'ApiError';
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  static notFound(what: string): ApiError {
    return new ApiError('not_found', `no ${what} with this id`);
  }

  static validation(errors: FieldError[]): ApiError {
    const detail = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
    return new ApiError('validation_failed', detail, errors);
  }
}
