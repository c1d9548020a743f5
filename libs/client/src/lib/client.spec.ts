import { ENDPOINTS, pathParams, servedPath, type Discussion, type Memory } from '@assistant/contracts';
import {
  closedPort,
  sendJson,
  sendProblem,
  startTestServer,
  TRANSPORTS,
  type Handler,
  type TestServer,
} from '../../test-support/http-test-server';
import { AssistantClient } from './client';
import { ApiRequestError, AssistantClientError, ConnectionError, ProtocolError } from './errors';
import { paginate } from './paginate';
import { normalizeBaseUrl } from './transport';

const TOKEN = 'ast_test_token';
const NOW = '2025-01-01T00:00:00.000Z';

const discussion = (n: number): Discussion => ({
  id: `dsc_${n}`,
  title: `Discussion ${n}`,
  created_at: NOW,
  updated_at: NOW,
  message_count: n,
});
const memory: Memory = {
  id: 'mem_1',
  content: 'likes tea',
  tags: ['food'],
  source: 'user',
  discussion_id: null,
  created_at: NOW,
  updated_at: NOW,
};

describe.each(TRANSPORTS)('AssistantClient over %s', (_transport, fetch) => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function serve(
    handler: Handler,
    options: { validateResponses?: boolean } = {},
  ): Promise<AssistantClient> {
    server = await startTestServer(handler);
    return new AssistantClient({ baseUrl: server.url, token: TOKEN, fetch, ...options });
  }

  it('me(): GET /api/v1/me with the bearer token', async () => {
    const account = {
      id: 'usr_1',
      email: 'owner@localhost',
      display_name: 'Owner',
      created_at: NOW,
      deployment: 'self-hosted',
      auto_approved_tools: [],
      token: { kind: 'personal', scopes: ['read:account'] },
      some_newer_field: true,
    };
    const client = await serve((_request, res) => sendJson(res, 200, account));

    expect(await client.getMe()).toEqual(account); // unknown fields are kept
    expect(server!.requests[0]).toMatchObject({ method: 'GET', path: '/api/v1/me' });
    expect(server!.requests[0]!.headers['authorization']).toBe(`Bearer ${TOKEN}`);
    expect(server!.requests[0]!.headers['accept']).toBe('application/json');
  });

  it('discussions: list with q/limit/cursor, create, get, rename, delete, messages', async () => {
    const client = await serve((request, res) => {
      const key = `${request.method} ${request.path}`;
      switch (key) {
        case 'GET /api/v1/discussions':
          return sendJson(res, 200, { data: [discussion(1)], next_cursor: null });
        case 'POST /api/v1/discussions':
          return sendJson(res, 201, { ...discussion(2), title: JSON.parse(request.body).title });
        case 'GET /api/v1/discussions/dsc_2':
          return sendJson(res, 200, discussion(2));
        case 'PATCH /api/v1/discussions/dsc_2':
          return sendJson(res, 200, { ...discussion(2), title: JSON.parse(request.body).title });
        case 'DELETE /api/v1/discussions/dsc_2':
          return sendJson(res, 204);
        case 'GET /api/v1/discussions/dsc_2/messages':
          return sendJson(res, 200, {
            data: [
              { id: 'msg_1', role: 'user', text: 'hi', tool_calls: [], query_id: 'qry_1', created_at: NOW },
            ],
            next_cursor: 'm2',
          });
        default:
          return sendProblem(res, 404, 'not_found', `no route ${key}`);
      }
    });

    expect(await client.listDiscussions({ query: { q: 'trip plans', limit: 5, cursor: 'abc' } })).toEqual({
      data: [discussion(1)],
      next_cursor: null,
    });
    expect(server!.requests[0]!.query.get('q')).toBe('trip plans');
    expect(server!.requests[0]!.query.get('limit')).toBe('5');
    expect(server!.requests[0]!.query.get('cursor')).toBe('abc');

    expect((await client.createDiscussion({ body: { title: 'Trip' } })).title).toBe('Trip');
    expect(server!.requests[1]!.headers['content-type']).toBe('application/json');
    expect((await client.getDiscussion({ id: 'dsc_2' })).id).toBe('dsc_2');
    expect((await client.renameDiscussion({ id: 'dsc_2', body: { title: 'Renamed' } })).title).toBe(
      'Renamed',
    );
    expect(JSON.parse(server!.requests[3]!.body)).toEqual({ title: 'Renamed' });
    expect(await client.deleteDiscussion({ id: 'dsc_2' })).toBeUndefined();
    const messages = await client.listMessages({ id: 'dsc_2', query: { limit: 1 } });
    expect(messages.data[0]!.text).toBe('hi');
    expect(messages.next_cursor).toBe('m2');
    expect(server!.requests[5]!.query.get('limit')).toBe('1');
    expect(server!.requests[5]!.query.has('cursor')).toBe(false);
  });

  it('memories and tokens: create, update, get, delete, list; revoke', async () => {
    const client = await serve((request, res) => {
      const key = `${request.method} ${request.path}`;
      if (key === 'POST /api/v1/memories')
        return sendJson(res, 201, { ...memory, ...JSON.parse(request.body) });
      if (key === 'PATCH /api/v1/memories/mem_1')
        return sendJson(res, 200, { ...memory, ...JSON.parse(request.body) });
      if (key === 'GET /api/v1/memories/mem_1') return sendJson(res, 200, memory);
      if (key === 'DELETE /api/v1/memories/mem_1') return sendJson(res, 204);
      if (key === 'GET /api/v1/memories') return sendJson(res, 200, { data: [memory], next_cursor: null });
      if (key === 'POST /api/v1/tokens') {
        const body = JSON.parse(request.body);
        return sendJson(res, 201, {
          id: 'tok_1',
          name: body.name,
          scopes: body.scopes,
          token_prefix: 'ast_abcd',
          created_at: NOW,
          expires_at: null,
          last_used_at: null,
          token: 'ast_secret',
        });
      }
      if (key === 'GET /api/v1/tokens') return sendJson(res, 200, { data: [], next_cursor: null });
      if (key === 'DELETE /api/v1/tokens/tok_1') return sendJson(res, 204);
      return sendProblem(res, 404, 'not_found', `no route ${key}`);
    });

    expect((await client.createMemory({ body: { content: 'likes tea', tags: ['food'] } })).content).toBe(
      'likes tea',
    );
    expect((await client.updateMemory({ id: 'mem_1', body: { content: 'likes green tea' } })).content).toBe(
      'likes green tea',
    );
    expect(JSON.parse(server!.requests[1]!.body)).toEqual({ content: 'likes green tea' });
    expect(await client.getMemory({ id: 'mem_1' })).toEqual(memory);
    await client.deleteMemory({ id: 'mem_1' });
    expect((await client.listMemories({ query: { q: 'tea' } })).data).toEqual([memory]);
    expect(server!.requests[4]!.query.get('q')).toBe('tea');

    const created = await client.createToken({ body: { name: 'bot', scopes: ['read:memories'] } });
    expect(created.token).toBe('ast_secret');
    expect(await client.listTokens()).toEqual({ data: [], next_cursor: null });
    await client.revokeToken({ id: 'tok_1' });
    expect(server!.requests.at(-1)).toMatchObject({ method: 'DELETE', path: '/api/v1/tokens/tok_1' });
  });

  it('queries: get, cancel', async () => {
    const query = {
      id: 'qry_1',
      status: 'running',
      discussion_id: 'dsc_1',
      message_id: 'msg_2',
      model: 'builtin',
      created_at: '2026-01-01T00:00:00.000Z',
      ended_at: null,
      last_event_id: 3,
    };
    const client = await serve((request, res) => {
      const key = `${request.method} ${request.path}`;
      if (key === 'GET /api/v1/queries/qry_1') return sendJson(res, 200, query);
      if (key === 'POST /api/v1/queries/qry_1/cancel') return sendJson(res, 200, query);
      return sendProblem(res, 404, 'not_found', `no route ${key}`);
    });

    expect(await client.getQuery({ id: 'qry_1' })).toEqual(query);
    expect(await client.cancelQuery({ id: 'qry_1' })).toEqual(query);
  });

  it('has one method per JSON endpoint of the contract, calling its declared method and path', async () => {
    const client = await serve((_request, res) => sendJson(res, 204));
    const json = ENDPOINTS.filter((e) => e.response.contentType !== 'text/event-stream');
    for (const endpoint of json) {
      const input = Object.fromEntries(pathParams(endpoint.path).map((name) => [name, 'x_1']));
      const method = (client as unknown as Record<string, (input: object) => Promise<unknown>>)[
        endpoint.operationId
      ];
      await method.call(client, endpoint.body ? { ...input, body: {} } : input).catch(() => undefined);
    }
    expect(server!.requests.map((r) => `${r.method} ${r.path}`)).toEqual(
      json.map((e) => `${e.method} ${servedPath(e).replace(/\{\w+\}/g, 'x_1')}`),
    );
  });

  it('encodes ids in paths', async () => {
    const client = await serve((_request, res) => sendJson(res, 200, discussion(1)));

    await client.getDiscussion({ id: 'a/b?c' });

    expect(server!.requests[0]!.path).toBe('/api/v1/discussions/a%2Fb%3Fc');
  });

  it('walks every page through next_cursor', async () => {
    const pages: Record<string, { data: Discussion[]; next_cursor: string | null }> = {
      first: { data: [discussion(1), discussion(2)], next_cursor: 'c2' },
      c2: { data: [discussion(3), discussion(4)], next_cursor: 'c3' },
      c3: { data: [discussion(5)], next_cursor: null },
    };
    const client = await serve((request, res) =>
      sendJson(res, 200, pages[request.query.get('cursor') ?? 'first']),
    );

    const ids: string[] = [];
    for await (const item of client.iterate('listDiscussions', { query: { q: 'x', limit: 2 } }))
      ids.push(item.id);

    expect(ids).toEqual(['dsc_1', 'dsc_2', 'dsc_3', 'dsc_4', 'dsc_5']);
    expect(server!.requests.map((request) => request.query.get('cursor'))).toEqual([null, 'c2', 'c3']);
    expect(
      server!.requests.every(
        (request) => request.query.get('q') === 'x' && request.query.get('limit') === '2',
      ),
    ).toBe(true);
  });

  it('paginate() stops on a cursor the server repeats', async () => {
    const pages = paginate(async () => ({ data: [1], next_cursor: 'same' }));
    const seen: number[] = [];

    await expect(
      (async () => {
        for await (const item of pages) seen.push(item);
      })(),
    ).rejects.toBeInstanceOf(AssistantClientError);
    expect(seen).toEqual([1, 1]);
  });

  it('turns problem+json into ApiRequestError with code and detail', async () => {
    const client = await serve((_request, res) =>
      sendProblem(res, 401, 'invalid_token', 'the token is not valid', {
        'www-authenticate': 'Bearer realm="assistant", error="invalid_token"',
      }),
    );

    const error = (await client.getMe().catch((e: unknown) => e)) as ApiRequestError;

    expect(error).toBeInstanceOf(ApiRequestError);
    expect(error).toMatchObject({
      status: 401,
      code: 'invalid_token',
      detail: 'the token is not valid',
      requestId: 'req_test',
    });
    expect(error.problemFromServer).toBe(true);
    expect(error.requiredScope).toBeUndefined();
    expect(error.message).not.toContain(TOKEN);
  });

  it('makes a problem up when the error body is not one (a proxy page), keeping Retry-After', async () => {
    const client = await serve((_request, res) => {
      res.writeHead(429, { 'content-type': 'text/html', 'retry-after': '30' }).end('<html>slow down</html>');
    });

    const error = (await client.getMe().catch((e: unknown) => e)) as ApiRequestError;

    expect(error).toBeInstanceOf(ApiRequestError);
    expect(error).toMatchObject({
      status: 429,
      code: 'rate_limited',
      problemFromServer: false,
      retryAfter: 30,
    });
    expect(error.detail).toContain('429');
  });

  it('throws ConnectionError with the URL when nothing listens', async () => {
    const port = await closedPort();
    const client = new AssistantClient({ baseUrl: `http://127.0.0.1:${port}`, token: TOKEN });

    const error = (await client.listMemories().catch((e: unknown) => e)) as ConnectionError;

    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.url).toBe(`http://127.0.0.1:${port}/api/v1/memories`);
    expect(error.reason).toBe('ECONNREFUSED');
  });

  it('checks replies against the contract, unless told not to', async () => {
    const handler: Handler = (_request, res) => sendJson(res, 200, { id: 'dsc_1', title: 42 });
    const strict = await serve(handler);

    const error = await strict.getDiscussion({ id: 'dsc_1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toContain('title');

    const lax = new AssistantClient({ baseUrl: server!.url, token: TOKEN, validateResponses: false });
    expect(await lax.getDiscussion({ id: 'dsc_1' })).toEqual({ id: 'dsc_1', title: 42 });
  });

  it('passes an AbortSignal to the request', async () => {
    const client = await serve(() => undefined); // never answers
    const controller = new AbortController();
    const pending = client.getMe(undefined, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);

    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('refuses a token that cannot go in a header, and a base URL that is not http(s)', () => {
    expect(() => new AssistantClient({ baseUrl: 'http://127.0.0.1:7747', token: 'ast_x\n' })).toThrow(
      TypeError,
    );
    expect(() => new AssistantClient({ baseUrl: 'ftp://example.com', token: 'x' })).toThrow(TypeError);
    expect(() => new AssistantClient({ baseUrl: '127.0.0.1:7747', token: 'x' })).toThrow(TypeError);
  });
});

describe('normalizeBaseUrl', () => {
  it.each([
    ['http://127.0.0.1:7747', 'http://127.0.0.1:7747'],
    ['http://127.0.0.1:7747/', 'http://127.0.0.1:7747'],
    ['http://127.0.0.1:7747/api/v1', 'http://127.0.0.1:7747'],
    ['https://example.com/assistant/api/v1/', 'https://example.com/assistant'],
    ['HTTPS://Example.COM:443', 'https://example.com'],
  ])('%s → %s', (input, output) => {
    expect(normalizeBaseUrl(input)).toBe(output);
  });
});
