import { request as httpRequest } from 'node:http';
import { startInProcessApp, type InProcessApp } from './in-process-app';

describe('startInProcessApp', () => {
  let api: InProcessApp;
  afterEach(() => api?.close());

  it('answers as the test user with the scopes asked for, and anonymously when told', async () => {
    api = await startInProcessApp({ scopes: ['read:account'], config: { logLevel: 'info' } });
    const me = await api.inject({ method: 'GET', url: '/api/v1/me' });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ id: api.userId, token: { scopes: ['read:account'] } });
    expect((await api.inject({ method: 'GET', url: '/api/v1/me', token: null })).statusCode).toBe(401);
    const other = await api.issueToken(['read:memories']);
    expect((await api.inject({ method: 'GET', url: '/api/v1/me', token: other })).statusCode).toBe(403);
    expect(api.logs().filter((line) => line.msg === 'request')).toHaveLength(3);
  });

  it('listens on a free local port on demand', async () => {
    api = await startInProcessApp();
    const url = await api.listen();
    const status = await new Promise<number | undefined>((resolve, reject) =>
      httpRequest(`${url}/healthz`, (res) => {
        res.resume();
        resolve(res.statusCode);
      })
        .on('error', reject)
        .end(),
    );
    expect(status).toBe(200);
  });
});
