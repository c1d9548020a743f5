/**
 * A method that a declared path is not served with is `405 method_not_allowed` with an `Allow` header naming the
 * methods it is served with, and a problem body (docs/api.md §5); a path that nothing serves stays a 404.
 */
import { ENDPOINTS, MCP_PATH, PROTOCOL_ROUTES, servedPath, type Problem } from '@assistant/contracts';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';

let api: InProcessApp;
beforeAll(async () => {
  api = await startInProcessApp();
});
afterAll(() => api?.close());

/** Every declared path, with a value for each of its parameters, and the methods it is declared with. */
const DECLARED_PATHS = [
  ...ENDPOINTS.reduce((paths, endpoint) => {
    const url = servedPath(endpoint).replace(/\{\w+\}/g, 'x');
    paths.set(url, [...(paths.get(url) ?? []), endpoint.method]);
    return paths;
  }, new Map<string, string[]>()),
];

const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** `Allow` as a set: the declared methods, and HEAD with GET (which answers HEAD too). */
const allowed = (methods: string[]) => new Set(methods.includes('GET') ? [...methods, 'HEAD'] : methods);
const allowOf = (header: unknown) => new Set(String(header ?? '').split(/,\s*/));

it('PUT /api/v1/memories: 405 with Allow and a problem body', async () => {
  const res = await api.inject({ method: 'PUT', url: '/api/v1/memories', payload: {} });

  expect(res.statusCode).toBe(405);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(allowOf(res.headers.allow)).toEqual(new Set(['GET', 'HEAD', 'POST']));
  expect(res.json<Problem>()).toMatchObject({
    code: 'method_not_allowed',
    status: 405,
    request_id: res.headers['x-request-id'],
  });
});

it.each(DECLARED_PATHS)(
  '%s: every undeclared method is 405, naming the declared ones',
  async (url, methods) => {
    for (const method of ALL_METHODS.filter((m) => !methods.includes(m))) {
      // `/pairing/claim` is also `/pairing/{id}` with the id "claim", which GET serves.
      const declared = url.endsWith('/pairing/claim') ? [...methods, 'GET'] : methods;
      if (declared.includes(method)) continue;
      const res = await api.inject({ method, url, ...(method === 'GET' ? {} : { payload: {} }) });

      expect({ method, status: res.statusCode }).toEqual({ method, status: 405 });
      expect(allowOf(res.headers.allow)).toEqual(allowed(declared));
      expect(res.json<Problem>().code).toBe('method_not_allowed');
    }
  },
);

it('PUT /api/v1/mcp: 405 naming the methods MCP is declared with (PROTOCOL_ROUTES)', async () => {
  const res = await api.inject({ method: 'PUT', url: MCP_PATH, payload: {} });

  expect(res.statusCode).toBe(405);
  expect(allowOf(res.headers.allow)).toEqual(allowed([...PROTOCOL_ROUTES.mcp.methods]));
});

it('answers HEAD wherever GET is, as Allow says', async () => {
  expect((await api.inject({ method: 'HEAD', url: '/api/v1/memories' })).statusCode).toBe(200);
  expect((await api.inject({ method: 'HEAD', url: '/healthz' })).statusCode).toBe(200);
});

it('answers 405 without a token too: which methods a path takes is in the public contract', async () => {
  const res = await api.inject({ method: 'PUT', url: '/api/v1/me', token: null, payload: {} });
  expect(res.statusCode).toBe(405);
});

it('still answers 404 for a path that nothing serves, whatever the method', async () => {
  for (const method of ['GET', 'PUT'] as const) {
    const res = await api.inject({ method, url: '/api/v1/nothing-here', payload: {} });
    expect(res.statusCode).toBe(404);
    expect(res.headers.allow).toBeUndefined();
    expect(res.json<Problem>().code).toBe('not_found');
  }
});
