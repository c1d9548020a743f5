import { sendJson, startTestServer, type TestServer } from '../../test-support/http-test-server';
import { sendWithNodeHttp } from './node-http';

describe('sendWithNodeHttp', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('sends the body with its length (not chunked) and reads the reply', async () => {
    server = await startTestServer((request, res) => sendJson(res, 201, { echo: request.body }));

    const response = await sendWithNodeHttp({
      method: 'POST',
      url: `${server.url}/api/v1/memories`,
      headers: { 'content-type': 'application/json' },
      body: '{"content":"thé"}',
    });

    expect(response).toMatchObject({ ok: true, status: 201, url: `${server.url}/api/v1/memories` });
    expect(response.headers.get('Content-Type')).toBe('application/json');
    expect(JSON.parse(await response.text())).toEqual({ echo: '{"content":"thé"}' });
    expect(server.requests[0]!.headers['content-length']).toBe('18');
    expect(server.requests[0]!.headers['transfer-encoding']).toBeUndefined();
  });

  it('follows a redirect as fetch does, by leaving the request to fetch', async () => {
    server = await startTestServer((request, res) => {
      if (request.path === '/old/api/v1/memories') {
        res.writeHead(307, { location: '/new/api/v1/memories' }).end();
      } else {
        sendJson(res, 201, { path: request.path, body: request.body });
      }
    });

    const response = await sendWithNodeHttp({
      method: 'POST',
      url: `${server.url}/old/api/v1/memories`,
      headers: { 'content-type': 'application/json' },
      body: '{"content":"x"}',
    });

    expect(response.status).toBe(201);
    expect(response.url).toBe(`${server.url}/new/api/v1/memories`);
    expect(JSON.parse(await response.text())).toEqual({
      path: '/new/api/v1/memories',
      body: '{"content":"x"}',
    });
    expect(server.requests.map((request) => request.path)).toEqual([
      '/old/api/v1/memories', // node:http
      '/old/api/v1/memories', // fetch, again
      '/new/api/v1/memories',
    ]);
  });

  it('rejects with the reason of a signal that has already fired, sending nothing', async () => {
    server = await startTestServer((_request, res) => sendJson(res, 200, {}));
    const reason = new Error('stop');

    await expect(
      sendWithNodeHttp({ method: 'GET', url: server.url, headers: {}, signal: AbortSignal.abort(reason) }),
    ).rejects.toBe(reason);
    expect(server.requests).toEqual([]);
  });
});
