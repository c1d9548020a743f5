/**
 * Headers that protect what the API answers: `X-Content-Type-Options: nosniff` on every response, whatever
 * answered it, and `Cache-Control: no-store` on the JSON of authenticated calls (a user's data must stay out of
 * shared caches and browser disks); only the public OpenAPI document may be cached.
 */
import type { InjectOptions } from 'fastify';
import { startInProcessApp, type InProcessApp, type InjectRequest } from '../../testing/in-process-app';

let api: InProcessApp;
beforeAll(async () => {
  api = await startInProcessApp({
    config: {
      rateLimits: {
        core: { limit: 1_000, windowSeconds: 3600 },
        queries: { limit: 1_000, windowSeconds: 3600 },
        auth: { limit: 1_000, windowSeconds: 3600 },
      },
    },
  });
});
afterAll(() => api?.close());

const json = (method: InjectOptions['method'], url: string, payload?: object): InjectRequest => ({
  method,
  url,
  ...(payload ? { payload } : {}),
});

describe('authenticated JSON', () => {
  it.each([
    ['GET /me', json('GET', '/api/v1/me')],
    ['GET /memories', json('GET', '/api/v1/memories')],
    ['POST /memories', json('POST', '/api/v1/memories', { content: 'the locker code is 1234' })],
    ['POST /discussions', json('POST', '/api/v1/discussions', {})],
    ['GET /tokens', json('GET', '/api/v1/tokens')],
  ])('%s is not to be stored by any cache', async (_name, request) => {
    const res = await api.inject(request);

    expect(res.statusCode).toBeLessThan(300);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
  });
});

describe('every response', () => {
  it.each([
    ['a success', json('GET', '/api/v1/me')],
    ['a 401', { ...json('GET', '/api/v1/me'), token: null }],
    ['an unknown route', json('GET', '/api/v1/nothing-here')],
    [
      'a body that is not JSON',
      {
        ...json('POST', '/api/v1/memories'),
        payload: 'x=1',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      },
    ],
    [
      'a body that does not parse',
      { ...json('POST', '/api/v1/memories'), payload: '{', headers: { 'content-type': 'application/json' } },
    ],
    ['the health check', { ...json('GET', '/healthz'), token: null }],
    ['the OpenAPI document', { ...json('GET', '/api/v1/openapi.json'), token: null }],
  ] as [string, InjectRequest][])('%s carries nosniff', async (_name, request) => {
    const res = await api.inject(request);

    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('an event stream carries nosniff', async () => {
    const res = await api.inject({ method: 'POST', url: '/api/v1/queries', payload: { text: 'thanks' } });

    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});

it('the public OpenAPI document may still be cached', async () => {
  const res = await api.inject({ method: 'GET', url: '/api/v1/openapi.json', token: null });

  expect(res.headers['cache-control']).toBe('public, max-age=300');
});
