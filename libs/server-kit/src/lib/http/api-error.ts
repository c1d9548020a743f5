import { ProblemError, type FieldError } from '@assistant/contracts';

/** An error the API's own modules answer on purpose (SPEC §5), with shorthands for the two most common ones. */
export class ApiError extends ProblemError {
  static notFound(what: string): ApiError {
    return new ApiError('not_found', `no ${what} with this id`);
  }

  static validation(errors: FieldError[]): ApiError {
    const detail = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
    return new ApiError('validation_failed', detail, { errors });
  }
}
