/**
 * The exception filter on the real app: each lib's errors (auth, storage, models, the API's own) are
 * ProblemErrors answered by one branch with their code, fields and headers; anything else is `internal`, with its
 * details in exactly one error-level log line under the request id and never in the answer.
 */
import { Logger } from '@nestjs/common';
import { ProblemError, type Problem } from '@assistant/contracts';
import { AuthError } from '@assistant/auth';
import { StorageError } from '@assistant/storage';
import { ModelUnavailableError } from '@assistant/agent-core';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';
import { ApiError } from '@assistant/server-kit';

let api: InProcessApp;
beforeAll(async () => {
  api = await startInProcessApp({ config: { logLevel: 'info' } });
});
afterAll(() => api?.close());
afterEach(() => jest.restoreAllMocks());

describe('each lib error is a ProblemError', () => {
  it.each([
    ['AuthError', AuthError.invalidToken('x'), 'invalid_token', 401],
    ['StorageError', StorageError.invalidCursor(), 'validation_failed', 422],
    ['ModelUnavailableError', new ModelUnavailableError('x'), 'model_unavailable', 503],
    ['ApiError', ApiError.notFound('memory'), 'not_found', 404],
  ] as const)('%s', (_name, error, code, status) => {
    expect(error).toBeInstanceOf(ProblemError);
    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
  });
});

describe('the problem filter', () => {
  it('answers an auth error with its code and its WWW-Authenticate challenge', async () => {
    const res = await api.inject({ method: 'GET', url: '/api/v1/me', token: null });

    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="assistant", error="invalid_token"');
    expect(res.json<Problem>()).toMatchObject({
      code: 'invalid_token',
      request_id: res.headers['x-request-id'],
    });
  });

  it('answers a cursor the server never gave out as 422 on the field cursor', async () => {
    const res = await api.inject({ method: 'GET', url: '/api/v1/memories?cursor=forged' });

    expect(res.statusCode).toBe(422);
    expect(res.json<Problem>()).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'cursor', message: expect.stringContaining('not a cursor this server gave out') }],
    });
  });

  it("answers the API's own errors with their code", async () => {
    const res = await api.inject({ method: 'GET', url: '/api/v1/memories/mem_doesnotexist' });

    expect(res.statusCode).toBe(404);
    expect(res.json<Problem>()).toMatchObject({ code: 'not_found', detail: 'no memory with this id' });
  });

  it('answers any other error as internal, and logs it once at error level with the request id', async () => {
    jest
      .spyOn(api.storage.memories, 'list')
      .mockRejectedValue(new Error('SQLITE_CORRUPT: SELECT secret FROM memories'));
    const before = api.logs().length;

    const res = await api.inject({ method: 'GET', url: '/api/v1/memories' });

    expect(res.statusCode).toBe(500);
    const problem = res.json<Problem>();
    expect(problem).toMatchObject({ code: 'internal', request_id: res.headers['x-request-id'] });
    expect(res.body).not.toMatch(/SQLITE|SELECT|secret|at /);
    const errors = api
      .logs()
      .slice(before)
      .filter((line) => (line.level as number) >= 50);
    expect(errors).toEqual([
      expect.objectContaining({
        request_id: problem.request_id,
        msg: 'unhandled error',
        err: expect.objectContaining({ message: expect.stringContaining('SQLITE_CORRUPT') }),
      }),
    ]);
  });

  it("writes Nest's own log lines (services, start-up) to the log, not to a buffer in memory", async () => {
    new Logger('QueriesService').error({ msg: 'run crashed', query_id: 'qry_1' });

    expect(api.logs()).toContainEqual(
      expect.objectContaining({ level: 50, msg: 'run crashed', query_id: 'qry_1' }),
    );
  });
});
