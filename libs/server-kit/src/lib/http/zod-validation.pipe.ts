import { Injectable, type PipeTransform } from '@nestjs/common';
import type { z } from 'zod';
import type { FieldError } from '@assistant/contracts';
import { ApiError } from './api-error';

/** Validates a body or query string against its contract schema; failures become 422 with field errors. */
@Injectable()
export class ZodValidationPipe<T extends z.ZodType> implements PipeTransform<unknown, z.infer<T>> {
  constructor(
    private readonly schema: T,
    private readonly where: 'body' | 'query',
  ) {}

  transform(value: unknown): z.infer<T> {
    // An empty body is an empty object: `POST /discussions` with no body creates an untitled discussion.
    const input = value === undefined || value === null ? {} : value;
    if (this.where === 'body' && (typeof input !== 'object' || Array.isArray(input))) {
      throw ApiError.validation([{ field: 'body', message: 'the body must be a JSON object' }]);
    }
    const result = this.schema.safeParse(input);
    if (result.success) return result.data;
    throw ApiError.validation(result.error.issues.flatMap((issue) => fieldErrors(issue, this.where)));
  }
}

function fieldErrors(issue: z.core.$ZodIssue, where: 'body' | 'query'): FieldError[] {
  const base = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      field: base ? `${base}.${key}` : key,
      message: where === 'body' ? 'unknown field' : 'unknown query parameter',
    }));
  }
  return [{ field: base || where, message: issue.message }];
}

export const validBody = <T extends z.ZodType>(schema: T) => new ZodValidationPipe(schema, 'body');
export const validQuery = <T extends z.ZodType>(schema: T) => new ZodValidationPipe(schema, 'query');
