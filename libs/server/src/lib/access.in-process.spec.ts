/**
 * Deny by default, route by route, on the real app: every endpoint of the contract refuses a token that holds
 * every scope but its own (403), and a request without a token (401). Dropping the scope check of any route,
 * or the guard's, turns one of these red here, in the server's own tests.
 */
import {
  ALL_SCOPES,
  ENDPOINTS,
  servedPath,
  type Endpoint,
  type Problem,
  type Scope,
} from '@assistant/contracts';
import { startInProcessApp, type InProcessApp } from '../testing/in-process-app';

const SCOPED = ENDPOINTS.filter((e): e is Endpoint & { scope: Scope } => e.scope !== null);
const PUBLIC = ENDPOINTS.filter((e) => e.scope === null);

/** A concrete request to the endpoint; the guard runs before the path parameters and the body are looked at. */
function requestTo(endpoint: Endpoint) {
  return {
    method: endpoint.method,
    url: servedPath(endpoint).replace(/\{\w+\}/g, 'id_1'),
    ...(endpoint.body ? { payload: {} } : {}),
  };
}

/** A request the endpoint answers with success: any request, except that a claim needs a live pairing code. */
async function successfulRequestTo(endpoint: Endpoint) {
  if (endpoint.operationId !== 'claimPairingCode') return requestTo(endpoint);
  const { code } = (await api.inject({ method: 'POST', url: '/api/v1/pairing' })).json<{ code: string }>();
  return { ...requestTo(endpoint), payload: { code, device_name: 'access check' } };
}

let api: InProcessApp;
/** Per scope, a token holding every scope except that one. */
const allBut = new Map<Scope, string>();

beforeAll(async () => {
  api = await startInProcessApp();
  for (const scope of new Set(SCOPED.map((e) => e.scope)))
    allBut.set(scope, await api.issueToken(ALL_SCOPES.filter((s) => s !== scope)));
});
afterAll(() => api?.close());

describe('every scoped endpoint of the contract', () => {
  it('has some endpoints to check', () => {
    expect(SCOPED.length).toBeGreaterThan(10);
  });

  it.each(SCOPED.map((e) => [`${e.method} ${e.path}`, e] as const))(
    '%s refuses a token without its scope with 403 insufficient_scope',
    async (_name, endpoint) => {
      const res = await api.inject({ ...requestTo(endpoint), token: allBut.get(endpoint.scope) });

      expect(res.statusCode).toBe(403);
      expect(res.json<Problem>().code).toBe('insufficient_scope');
      expect(res.headers['www-authenticate']).toBe(
        `Bearer realm="assistant", error="insufficient_scope", scope="${endpoint.scope}"`,
      );
    },
  );

  it.each(SCOPED.map((e) => [`${e.method} ${e.path}`, e] as const))(
    '%s refuses a request without a token with 401 invalid_token',
    async (_name, endpoint) => {
      const res = await api.inject({ ...requestTo(endpoint), token: null });

      expect(res.statusCode).toBe(401);
      expect(res.json<Problem>().code).toBe('invalid_token');
      expect(res.headers['www-authenticate']).toBe('Bearer realm="assistant", error="invalid_token"');
    },
  );

  // The control: the same request with the scope gets past the guard, so the 403 above is the scope check's.
  it.each(SCOPED.map((e) => [`${e.method} ${e.path}`, e] as const))(
    '%s lets a token with only its scope past the guard',
    async (_name, endpoint) => {
      const token = await api.issueToken([endpoint.scope]);
      const res = await api.inject({ ...requestTo(endpoint), token });

      expect([401, 403]).not.toContain(res.statusCode);
    },
  );
});

describe('every public endpoint of the contract', () => {
  it.each(PUBLIC.map((e) => [`${e.method} ${e.path}`, e] as const))(
    '%s answers without a token',
    async (_name, endpoint) => {
      const res = await api.inject({ ...(await successfulRequestTo(endpoint)), token: null });

      expect(res.statusCode).toBe(endpoint.response.status);
    },
  );
});
