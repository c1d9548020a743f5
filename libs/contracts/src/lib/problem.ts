import { z } from 'zod';
import { ERROR_CODES, problemType, type ErrorCode } from './error-codes';

export const fieldErrorSchema = z.object({
  field: z.string().describe('Dotted path of the offending field, or "body" for the whole body'),
  message: z.string(),
});
export type FieldError = z.infer<typeof fieldErrorSchema>;

export const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    code: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]),
    detail: z.string(),
    request_id: z.string(),
    errors: z.array(fieldErrorSchema).optional(),
  })
  .meta({ id: 'Problem' });
export type Problem = z.infer<typeof problemSchema>;

/** Builds the problem object for a code: the one place where code, status, title and type meet. */
export function problemOf(
  code: ErrorCode,
  detail: string,
  requestId: string,
  errors?: FieldError[],
): Problem {
  const { status, title } = ERROR_CODES[code];
  return {
    type: problemType(code),
    title,
    status,
    code,
    detail,
    request_id: requestId,
    ...(errors ? { errors } : {}),
  };
}
