import { readFileSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ALL_SCOPES } from '@assistant/contracts';
import { createAccount } from '../accounts/create-account';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';
import { importWithNode, makeToolsFolder, toolModule, type ToolsFolder } from '../../testing/custom-tools';

let api: InProcessApp;
let url: string;
let folder: ToolsFolder;
beforeAll(async () => {
  // A user-defined business function, as a self-hoster drops it into the tools folder.
  folder = makeToolsFolder();
  folder.write(
    'order-status.mjs',
    toolModule(
      "name: 'custom_order_status', description: 'The status of an order in our shop', input: z.object({ id: z.string() })",
      'return { id: input.id, status: `order ${input.id} ships tomorrow` };',
    ),
  );
  // A call that takes a while, to send a second request while it runs.
  folder.write(
    'slow-echo.mjs',
    toolModule(
      "name: 'custom_slow_echo', description: 'Answers after a while', input: z.object({ text: z.string(), ms: z.number() })",
      'await new Promise((resolve) => setTimeout(resolve, input.ms)); return { echoed: input.text };',
    ),
  );
  api = await startInProcessApp({
    config: { customToolsDir: folder.path },
    customToolImporter: importWithNode,
  });
  url = await api.listen();
});
afterAll(async () => {
  await api?.close();
  folder?.close();
});

/** The MCP SDK's own client over Streamable HTTP, with a bearer token. */
async function connect(token: string, onListChanged?: () => void): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  if (onListChanged)
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => onListChanged());
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/api/v1/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);
const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as Array<{ type: string; text: string }>)[0]?.text;

describe('MCP at /api/v1/mcp', () => {
  it("lists exactly the catalogue's tools the token may use, in the catalogue's order, with schemas and hints", async () => {
    const client = await connect(api.token);
    const { tools } = await client.listTools();
    const catalogue = (await api.inject({ method: 'GET', url: '/api/v1/tools' })).json().data as Array<{
      name: string;
      active: boolean;
    }>;
    expect(tools.map((t) => t.name)).toEqual(catalogue.filter((t) => t.active).map((t) => t.name));
    const write = tools.find((t) => t.name === 'files_write');
    expect(write).toMatchObject({
      inputSchema: { type: 'object', required: expect.arrayContaining(['path']) },
      annotations: { readOnlyHint: false, destructiveHint: true },
      description: expect.stringContaining('ask the user before calling it'),
    });
    expect(tools.find((t) => t.name === 'memory_search')?.annotations).toMatchObject({ readOnlyHint: true });
    await client.close();
  });

  it('offers a custom tool of the server next to the account’s own, and runs it', async () => {
    const client = await connect(api.token);
    expect(await names(client)).toContain('custom_order_status');
    const result = await client.callTool({ name: 'custom_order_status', arguments: { id: 'A-17' } });
    expect(result.structuredContent).toEqual({ id: 'A-17', status: 'order A-17 ships tomorrow' });
    await client.close();
  });

  it('keeps to the token’s scopes: a read-only token neither lists nor runs a write tool', async () => {
    const client = await connect(await api.issueToken(['read:memories', 'read:files']));
    // custom_order_status needs read:tools, which this token lacks.
    expect(await names(client)).toEqual(['files_list', 'files_read', 'files_search', 'memory_search']);
    const refused = await client.callTool({ name: 'memory_save', arguments: { content: 'sneaky' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^memory_save is not one of this token's tools/);
    expect((await api.storage.memories.list(api.userId, { limit: 10 })).items).toEqual([]);
    await client.close();
  });

  it('calls tools with their own checks: a memory saved and found, a files path refused, bad input in words', async () => {
    const client = await connect(api.token);
    const saved = await client.callTool({
      name: 'memory_save',
      arguments: { content: 'the gate code is 4711' },
    });
    expect(saved.structuredContent).toMatchObject({ content: 'the gate code is 4711' });
    const found = await client.callTool({ name: 'memory_search', arguments: { query: 'gate code' } });
    expect(textOf(found)).toContain('4711');
    const escaped = await client.callTool({
      name: 'files_read',
      arguments: { path: '../../credentials.json' },
    });
    expect(escaped).toMatchObject({ isError: true });
    expect(textOf(escaped)).toMatch(/outside the folder/);
    const bad = await client.callTool({ name: 'memory_save', arguments: {} });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/^memory_save: content/);
    await client.close();
  });

  it("tells a connected client when the account's tools change", async () => {
    let changed = 0;
    const client = await connect(api.token, () => void changed++);
    // Once initialized, the client opens its event stream, where notifications come.
    await client.listTools();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const created = await api.inject({
      method: 'POST',
      url: '/api/v1/connections',
      payload: { family: 'web', provider: 'fetch', settings: {} },
    });
    expect(created.statusCode).toBe(201);
    for (let i = 0; i < 50 && changed === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(changed).toBe(1);
    await client.close();
  });

  it('answers 401 with the protected resource metadata, so a client can sign in by itself', async () => {
    const res = await fetch(`${url}/api/v1/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer realm="assistant", error="invalid_token", resource_metadata="${url}/.well-known/oauth-protected-resource/api/v1"`,
    );
  });

  it('refuses a foreign Host or Origin (DNS rebinding), and a session to anyone but the token that opened it', async () => {
    const { port } = new URL(url);
    expect((await raw(url, { origin: 'http://evil.example' }, initialize())).status).toBe(403);
    expect((await raw(url, { host: `evil.example:${port}` }, initialize())).status).toBe(403);
    const mine = await openSession(url, api.token);
    const tools = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    expect((await raw(url, { 'mcp-session-id': mine }, tools)).status).toBe(200);
    const other = await createAccount(api.storage, { email: 'other@example.test', scopes: ALL_SCOPES });
    const theirs = await raw(url, { authorization: `Bearer ${other.token}`, 'mcp-session-id': mine }, tools);
    expect(theirs.status).toBe(404);
    // Another token of the same account does not ride on it either (it has its own scopes and its own sessions).
    const sibling = await api.issueToken(ALL_SCOPES);
    expect(
      (await raw(url, { authorization: `Bearer ${sibling}`, 'mcp-session-id': mine }, tools)).status,
    ).toBe(404);
  });

  it('accepts a loopback Origin on any port when it listens on loopback, with a token; refuses others', async () => {
    const { port } = new URL(url);
    const otherPort = String(Number(port) === 6274 ? 6275 : 6274);
    for (const origin of [`http://127.0.0.1:${otherPort}`, 'http://localhost:3000', 'http://[::1]:8080']) {
      expect({ origin, status: (await raw(url, { origin }, initialize())).status }).toEqual({
        origin,
        status: 200,
      });
    }
    for (const origin of ['http://evil.example', `http://127.0.0.1.evil.example:${port}`, 'null']) {
      expect({ origin, status: (await raw(url, { origin }, initialize())).status }).toEqual({
        origin,
        status: 403,
      });
    }
    // The token is still required.
    const anonymous = await raw(
      url,
      { origin: `http://127.0.0.1:${otherPort}`, authorization: '' },
      initialize(),
    );
    expect(anonymous.status).toBe(401);
  });

  it("names the server's package version in serverInfo", async () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    const client = await connect(api.token);
    expect(client.getServerVersion()).toMatchObject({ name: 'assistant', version: manifest.version });
    await client.close();
  });

  it('refuses a request whose id is in flight in the session with -32600, and answers the first', async () => {
    const session = await openSession(url, api.token);
    const call = (id: number, name: string, args: object) =>
      raw(
        url,
        { 'mcp-session-id': session },
        { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } },
      );
    const first = call(7, 'custom_slow_echo', { text: 'first', ms: 1_500 });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const second = await call(7, 'custom_order_status', { id: 'B-2' });
    expect(second.status).toBe(400);
    expect(second.messages).toEqual([
      { jsonrpc: '2.0', id: 7, error: { code: -32600, message: expect.stringMatching(/in flight/) } },
    ]);
    const answered = await first;
    expect(answered.messages).toEqual([
      expect.objectContaining({
        id: 7,
        result: expect.objectContaining({ structuredContent: { echoed: 'first' } }),
      }),
    ]);
    // Once answered, the id is free again.
    const again = await call(7, 'custom_order_status', { id: 'B-3' });
    expect(again.messages).toEqual([
      expect.objectContaining({
        id: 7,
        result: expect.objectContaining({ structuredContent: expect.anything() }),
      }),
    ]);
  });
});

describe('MCP sessions of the 2025 revisions are bounded', () => {
  const PER_ACCOUNT = 3;
  const IDLE_MS = 1_000;
  let limited: InProcessApp;
  let limitedUrl: string;
  beforeAll(async () => {
    limited = await startInProcessApp({
      config: { mcp: { sessionsPerAccount: PER_ACCOUNT, sessionIdleMs: IDLE_MS } },
    });
    limitedUrl = await limited.listen();
  });
  afterAll(async () => {
    await limited?.close();
  });
  const list = (session: string, token = limited.token) =>
    raw(
      limitedUrl,
      { authorization: `Bearer ${token}`, 'mcp-session-id': session },
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    );

  it("ends an account's least recently used session when it opens one more than its cap; other accounts keep theirs", async () => {
    const other = await createAccount(limited.storage, {
      email: 'cap-other@example.test',
      scopes: ALL_SCOPES,
    });
    const theirs = await openSession(limitedUrl, other.token);
    const mine: string[] = [];
    for (let i = 0; i < PER_ACCOUNT; i++) mine.push(await openSession(limitedUrl, limited.token));
    // The first is used again: the second is now the least recently used.
    expect((await list(mine[0]!)).status).toBe(200);
    mine.push(await openSession(limitedUrl, limited.token));
    const statuses = await Promise.all(mine.map(async (session) => (await list(session)).status));
    expect(statuses).toEqual([200, 404, 200, 200]);
    expect((await list(theirs, other.token)).status).toBe(200);
  });

  it('ends a session that no request used for the idle time; one in use lives on', async () => {
    const idle = await openSession(limitedUrl, limited.token);
    const busy = await openSession(limitedUrl, limited.token);
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS / 2));
      expect((await list(busy)).status).toBe(200);
    }
    expect((await list(idle)).status).toBe(404);
  });
});

/** An `initialize` request of a 2025-11-25 client. */
function initialize(): object {
  return {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
}

interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The JSON-RPC messages of the answer (a JSON body, or the events of an event stream). */
  messages: unknown[];
}

/**
 * One POST to the MCP endpoint with node:http, which sends Host and Origin as given (fetch would set or drop them).
 * A bearer token of the in-process app's user unless the headers say otherwise (an empty one sends none).
 */
function raw(base: string, headers: Record<string, string>, body: object): Promise<RawAnswer> {
  const { port } = new URL(base);
  const { authorization = `Bearer ${api.token}`, ...rest } = headers;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/api/v1/mcp',
        method: 'POST',
        headers: {
          ...(authorization ? { authorization } : {}),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(rest['mcp-session-id'] ? { 'mcp-protocol-version': '2025-11-25' } : {}),
          ...rest,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            messages: messagesOf(text, res.headers),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

function messagesOf(text: string, headers: IncomingHttpHeaders): unknown[] {
  if (!text) return [];
  if (!String(headers['content-type']).startsWith('text/event-stream')) {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed : [parsed];
  }
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line.length > 'data: '.length)
    .map((line) => JSON.parse(line.slice('data: '.length)) as unknown);
}

/** A session opened with `initialize` (and `notifications/initialized`) by raw requests: its id. */
async function openSession(base: string, token: string): Promise<string> {
  const opened = await raw(base, { authorization: `Bearer ${token}` }, initialize());
  expect(opened.status).toBe(200);
  const session = opened.headers['mcp-session-id'];
  if (typeof session !== 'string') throw new Error('no Mcp-Session-Id');
  await raw(
    base,
    { authorization: `Bearer ${token}`, 'mcp-session-id': session },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
  );
  return session;
}
