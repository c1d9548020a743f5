/**
 * `/healthz` says the process serves; `/readyz` runs the readiness checks (database, schema, and whatever parts
 * register) and answers 503 naming what is not ready. Both are public and not rate-limited.
 */
import { RATE_LIMIT_HEADERS } from '@assistant/contracts';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';
import { Readiness } from './readiness';
import { NotReady } from '@assistant/server-kit';

describe('health and readiness', () => {
  let api: InProcessApp;
  beforeEach(async () => {
    api = await startInProcessApp();
  });
  afterEach(() => api.close());

  const get = (url: string) => api.inject({ method: 'GET', url, token: null });

  it('/healthz answers 200 without a token and without counting against a rate limit', async () => {
    const res = await get('/healthz');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', database: 'sqlite' });
    for (const header of Object.values(RATE_LIMIT_HEADERS)) expect(res.headers[header]).toBeUndefined();
  });

  it('/readyz answers 200 with the checks that passed, uncounted', async () => {
    const res = await get('/readyz');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ready', checks: ['database', 'migrations'] });
    for (const header of Object.values(RATE_LIMIT_HEADERS)) expect(res.headers[header]).toBeUndefined();
  });

  it('/readyz answers 503 problem+json naming a failing check that a part registered, without its cause', async () => {
    const readiness = api.app.get(Readiness);
    readiness.add({
      name: 'redis',
      check: () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.7:6379')),
    });
    readiness.add({ name: 'queue', check: () => Promise.reject(new NotReady('still warming up')) });
    const res = await get('/readyz');
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = res.json<{ code: string; detail: string }>();
    expect(problem.code).toBe('service_unavailable');
    expect(problem.detail).toBe('not ready: redis (failed); queue (still warming up)');
    expect(problem.detail).not.toContain('10.0.0.7');
    // Liveness does not depend on what readiness checks.
    expect((await get('/healthz')).statusCode).toBe(200);
  });

  it('/readyz answers 503 when the database does not answer', async () => {
    await api.storage.close();
    const res = await get('/readyz');
    expect(res.statusCode).toBe(503);
    expect(res.json<{ detail: string }>().detail).toMatch(/^not ready: database \(failed\)/);
    // Liveness does not: an orchestrator must not restart every instance for a database outage.
    expect((await get('/healthz')).statusCode).toBe(200);
  });

  it('a check that hangs fails after its timeout instead of hanging the probe', async () => {
    const readiness = new Readiness([{ name: 'slow', check: () => new Promise(() => undefined) }]);
    await expect(readiness.evaluate(50)).resolves.toEqual({
      passed: [],
      failed: [{ name: 'slow', reason: 'no answer within 50 ms' }],
    });
  });
});
