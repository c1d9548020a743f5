/**
 * The rate-limit hook on the real app (SPEC §7): only a verified token gets a bucket of its own; forged tokens,
 * however well formed, count against the client address; the token is verified once per request; /healthz is
 * not counted.
 */
import { RATE_LIMIT_HEADERS, type Problem } from '@assistant/contracts';
import { generateToken } from '@assistant/auth';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';

const LIMIT = 5;
const limits = { limit: LIMIT, windowSeconds: 3600 };

let api: InProcessApp;
beforeEach(async () => {
  api = await startInProcessApp({
    config: { rateLimits: { core: limits, queries: limits, auth: limits }, tokenCacheTtlMs: 0 },
  });
});
afterEach(() => api?.close());

/** A token with the right prefix and a valid checksum (the checksum is public), that the server never issued. */
const forgedToken = () => generateToken('personal').secret;

it('counts well-formed forged tokens against the client address, not each in a bucket of its own', async () => {
  for (let i = 1; i <= LIMIT; i++) {
    const res = await api.inject({ method: 'GET', url: '/api/v1/me', token: forgedToken() });
    expect(res.statusCode).toBe(401);
    expect(res.headers[RATE_LIMIT_HEADERS.remaining]).toBe(String(LIMIT - i));
  }

  const res = await api.inject({ method: 'GET', url: '/api/v1/me', token: forgedToken() });
  expect(res.statusCode).toBe(429);
  expect(res.json<Problem>().code).toBe('rate_limited');
  expect(res.headers['retry-after']).toMatch(/^\d+$/);
  // Anonymous requests from that address share the exhausted bucket.
  expect((await api.inject({ method: 'GET', url: '/api/v1/me', token: null })).statusCode).toBe(429);
});

it('gives a verified token a bucket of its own, apart from its address', async () => {
  for (let i = 0; i < LIMIT + 1; i++)
    await api.inject({ method: 'GET', url: '/api/v1/me', token: forgedToken() });

  const res = await api.inject({ method: 'GET', url: '/api/v1/me' });

  expect(res.statusCode).toBe(200);
  expect(res.headers[RATE_LIMIT_HEADERS.remaining]).toBe(String(LIMIT - 1));
});

it('verifies a token once per request, for the rate limit and the guard together', async () => {
  const lookups = jest.spyOn(api.storage.tokens, 'findByDigest');

  expect((await api.inject({ method: 'GET', url: '/api/v1/me' })).statusCode).toBe(200);
  expect((await api.inject({ method: 'GET', url: '/api/v1/me', token: forgedToken() })).statusCode).toBe(401);

  expect(lookups).toHaveBeenCalledTimes(2);
});

it('does not count /healthz, so that anonymous traffic cannot make a healthy server look down', async () => {
  for (let i = 0; i < LIMIT * 2; i++) {
    const res = await api.inject({ method: 'GET', url: '/healthz', token: null });
    expect(res.statusCode).toBe(200);
  }

  const anonymous = await api.inject({ method: 'GET', url: '/api/v1/me', token: null });
  expect(anonymous.headers[RATE_LIMIT_HEADERS.remaining]).toBe(String(LIMIT - 1));
});
