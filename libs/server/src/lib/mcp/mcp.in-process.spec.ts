import { request } from 'node:http';
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

  it('refuses a foreign Host or Origin (DNS rebinding), and another account’s session', async () => {
    const { port } = new URL(url);
    /** node:http, which sends Host and Origin as given (fetch would set or drop them). */
    const post = (headers: Record<string, string>, body: object) =>
      new Promise<{ status: number; session?: string }>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path: '/api/v1/mcp',
            method: 'POST',
            headers: {
              authorization: `Bearer ${api.token}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              ...headers,
            },
          },
          (res) => {
            res.resume();
            resolve({ status: res.statusCode ?? 0, session: res.headers['mcp-session-id'] as string });
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify(body));
      });
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    expect((await post({ origin: 'http://evil.example' }, initialize)).status).toBe(403);
    expect((await post({ host: `evil.example:${port}` }, initialize)).status).toBe(403);
    const mine = await post({}, initialize);
    expect(mine.status).toBe(200);
    const other = await createAccount(api.storage, { email: 'other@example.test', scopes: ALL_SCOPES });
    const theirs = await post(
      {
        authorization: `Bearer ${other.token}`,
        'mcp-session-id': mine.session as string,
        'mcp-protocol-version': '2025-11-25',
      },
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
    );
    expect(theirs.status).toBe(404);
  });
});
