/**
 * The rate-limit hook on the real app (SPEC §7): only a verified token gets a bucket of its own; forged tokens,
 * however well formed, count against the client address; the token is verified once per request; /healthz is
 * not counted.
 */
import { RATE_LIMIT_HEADERS, type Problem } from '@assistant/contracts';
import { generateToken } from '@assistant/auth';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';
import { CLIENT_REGISTRATIONS_PER_ADDRESS } from './rate-limit.hook';

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

describe('the authorization server’s requests', () => {
  it('count in the auth bucket, and its answers carry the rate-limit headers', async () => {
    const token = await api.inject({ method: 'POST', url: '/oauth/token', token: null, payload: {} });
    const metadata = await api.inject({
      method: 'GET',
      url: '/.well-known/oauth-authorization-server',
      token: null,
    });

    for (const [i, res] of [token, metadata].entries()) {
      expect(res.headers[RATE_LIMIT_HEADERS.resource]).toBe('auth');
      expect(res.headers[RATE_LIMIT_HEADERS.remaining]).toBe(String(LIMIT - 1 - i));
      expect(res.headers['x-request-id']).toEqual(expect.any(String));
    }
  });

  it('reach it only for what it serves: a part of it that is off is this server’s 404 problem', async () => {
    for (const url of ['/oauth/userinfo', '/oauth/logout', '/oauth/device', '/oauth/jwks']) {
      const res = await api.inject({ method: 'GET', url, token: null });
      expect({ url, status: res.statusCode, code: res.json<Problem>().code }).toEqual({
        url,
        status: 404,
        code: 'not_found',
      });
    }
  });

  it('register at most CLIENT_REGISTRATIONS_PER_ADDRESS clients from one address; the next is 429', async () => {
    await api.close();
    const roomy = { limit: 1000, windowSeconds: 3600 };
    api = await startInProcessApp({ config: { rateLimits: { core: roomy, queries: roomy, auth: roomy } } });
    const register = () =>
      api.inject({
        method: 'POST',
        url: '/oauth/register',
        token: null,
        payload: { redirect_uris: ['http://127.0.0.1/cb'] },
      });
    for (let i = 0; i < CLIENT_REGISTRATIONS_PER_ADDRESS.limit; i++) {
      // The provider itself does not load in this tier (503); what counts is that the limiter let it through.
      expect((await register()).statusCode).not.toBe(429);
    }

    const refused = await register();
    expect(refused.statusCode).toBe(429);
    expect(refused.json<Problem>().code).toBe('rate_limited');
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    // Other requests of the address are not held back by it.
    expect((await api.inject({ method: 'GET', url: '/api/v1/me', token: null })).statusCode).toBe(401);
  });
});
