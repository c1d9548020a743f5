/**
 * Requests that Node's HTTP parser or Fastify's router refuse before any route runs are answered like every
 * other error (SPEC §5, §7): problem+json with a request id, the rate-limit headers, counted against the client
 * address, and the connection closed. Sent over raw sockets, since no HTTP client sends these.
 */
import { ERROR_CODES, RATE_LIMIT_HEADERS, type Problem } from '@assistant/contracts';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';
import { sendRaw, type RawResponse } from '../../testing/raw-http';

let api: InProcessApp;
let url: string;
const LIMIT = 50;

beforeAll(async () => {
  api = await startInProcessApp({
    config: {
      rateLimits: {
        core: { limit: LIMIT, windowSeconds: 3600 },
        queries: { limit: LIMIT, windowSeconds: 3600 },
        auth: { limit: LIMIT, windowSeconds: 3600 },
      },
    },
  });
  url = await api.listen();
});
afterAll(() => api?.close());

function expectProblem(
  response: RawResponse | undefined,
  code: keyof typeof ERROR_CODES,
  limit = LIMIT,
): Problem {
  expect(response).toBeDefined();
  const { status, headers, body } = response as RawResponse;
  expect(status).toBe(ERROR_CODES[code].status);
  expect(headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers[RATE_LIMIT_HEADERS.limit]).toBe(String(limit));
  expect(headers[RATE_LIMIT_HEADERS.resource]).toBe('core');
  const problem = JSON.parse(body) as Problem;
  expect(problem).toMatchObject({ code, status: ERROR_CODES[code].status });
  expect(problem.request_id).toMatch(/^req_/);
  expect(headers['x-request-id']).toBe(problem.request_id);
  return problem;
}

const GET = (path: string, headers = '') => `GET ${path} HTTP/1.1\r\nHost: x\r\n${headers}\r\n`;

describe("refused by Node's HTTP parser", () => {
  it.each([
    ['headers larger than 16 KiB', GET('/healthz', `X-Big: ${'a'.repeat(20_000)}\r\n`), 'headers_too_large'],
    ['a URL larger than 16 KiB', GET(`/api/v1/memories?x=${'a'.repeat(20_000)}`), 'headers_too_large'],
    ['a bad request line', 'GET /healthz HTTP/9\r\n\r\n', 'bad_request'],
    ['a header with a forbidden character', GET('/healthz', 'X-Bad: a\u0001b\r\n'), 'bad_request'],
    [
      'a duplicate Content-Length',
      'POST /api/v1/memories HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
      'bad_request',
    ],
    [
      'a bad chunk size',
      'POST /api/v1/memories HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      'bad_request',
    ],
  ] as const)(
    '%s: a problem with a request id and the rate-limit headers, then close',
    async (_name, bytes, code) => {
      const { response, closed } = await sendRaw(url, bytes);

      expectProblem(response, code);
      expect(response?.headers.connection).toBe('close');
      expect(closed).toBe(true);
    },
  );
});

describe("refused by Fastify's router", () => {
  it('a URL that is not validly percent-encoded names nothing: not_found', async () => {
    const res = await api.inject({ method: 'GET', url: '/api/v1/memories/%00%ff' });

    expect(res.statusCode).toBe(404);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers[RATE_LIMIT_HEADERS.limit]).toBe(String(LIMIT));
    expect(res.json<Problem>()).toMatchObject({ code: 'not_found', request_id: res.headers['x-request-id'] });
  });

  it('an id longer than any id names nothing: not_found', async () => {
    const res = await api.inject({ method: 'GET', url: `/api/v1/memories/${'m'.repeat(200)}` });

    expect(res.statusCode).toBe(404);
    expect(res.headers[RATE_LIMIT_HEADERS.limit]).toBe(String(LIMIT));
    expect(res.json<Problem>().code).toBe('not_found');
  });
});

it('counts malformed requests against the client address, up to 429', async () => {
  const fresh = await startInProcessApp({
    config: {
      rateLimits: {
        core: { limit: 2, windowSeconds: 3600 },
        queries: { limit: 2, windowSeconds: 3600 },
        auth: { limit: 2, windowSeconds: 3600 },
      },
    },
  });
  try {
    const freshUrl = await fresh.listen();
    const bad = 'GET /healthz HTTP/9\r\n\r\n';
    expect((await sendRaw(freshUrl, bad)).response?.headers[RATE_LIMIT_HEADERS.remaining]).toBe('1');
    // Anonymous requests from the same address share the bucket.
    const anonymous = await fresh.inject({ method: 'GET', url: '/api/v1/me', token: null });
    expect(anonymous.headers[RATE_LIMIT_HEADERS.remaining]).toBe('0');
    const { response } = await sendRaw(freshUrl, bad);
    expectProblem(response, 'rate_limited', 2);
    expect(response?.headers['retry-after']).toMatch(/^\d+$/);
  } finally {
    await fresh.close();
  }
});
