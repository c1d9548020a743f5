import { createMemorySchema, pageQuerySchema } from '@assistant/contracts';
import { validBody, validQuery } from './zod-validation.pipe';
import { ApiError } from './api-error';

function errorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    return error as ApiError;
  }
  throw new Error('expected an error');
}

describe('ZodValidationPipe', () => {
  it('names each bad field and each unknown one', () => {
    const error = errorOf(() =>
      validBody(createMemorySchema).transform({ content: 1, tags: ['ok'], mood: 'x' }),
    );
    expect(error.code).toBe('validation_failed');
    expect(error.fieldErrors).toEqual(
      expect.arrayContaining([
        { field: 'content', message: expect.any(String) },
        { field: 'mood', message: 'unknown field' },
      ]),
    );
  });

  it('refuses a body that is not an object', () => {
    expect(errorOf(() => validBody(createMemorySchema).transform([1])).fieldErrors).toEqual([
      { field: 'body', message: 'the body must be a JSON object' },
    ]);
  });

  it('coerces and checks query strings', () => {
    expect(validQuery(pageQuerySchema).transform({ limit: '5' })).toEqual({ limit: 5 });
    expect(errorOf(() => validQuery(pageQuerySchema).transform({ page: '2' })).fieldErrors).toEqual([
      { field: 'page', message: 'unknown query parameter' },
    ]);
  });
});
