import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AssistantClient } from '@assistant/client';
import { credentialsFileIn, readCredentials } from '@assistant/client/local';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { BUILT, childEnv, run, startServer, WORKSPACE_ROOT, type ServerProcess } from './support/processes';

/**
 * The MCP launcher (`assistant-mcp`, built) as an MCP client starts it, the MCP SDK's own Client over stdio, in front
 * of a real `assistant serve`: the account's tools listed and called through it, `list_changed` when the account
 * adds a connection, a server restart that the client does not notice, and the launcher's failure lines.
 */
describe('assistant-mcp in front of a real `assistant serve`', () => {
  let dataDir: string;
  let server: ServerProcess;
  let api: AssistantClient;
  let token: string;
  let searxng: Server;
  let searxngUrl: string;
  const open: Client[] = [];

  /** A user-defined business function in the server's tools folder, with the kit installed beside it. */
  const toolsDir = () => join(dataDir, 'my-tools');
  const serve = (port: number) =>
    startServer(
      BUILT.cli,
      ['serve', '--data-dir', dataDir, '--port', String(port), '--tools', toolsDir()],
      {},
    );

  async function connect(withToken = token): Promise<{
    client: Client;
    stderr(): string;
    errors: Error[];
    listChanged(): Promise<void>;
  }> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BUILT.mcp, '--url', server.url],
      env: childEnv({ ASSISTANT_API_TOKEN: withToken }) as Record<string, string>,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk) => (stderr += chunk));
    const client = new Client({ name: 'mcp-launcher-e2e', version: '0.0.0' });
    const errors: Error[] = [];
    client.onerror = (error) => errors.push(error);
    let changes = 0;
    let signal: () => void = () => undefined;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changes++;
      signal();
    });
    await client.connect(transport);
    open.push(client);
    return {
      client,
      errors,
      stderr: () => stderr,
      listChanged: () => {
        const seen = changes;
        return new Promise<void>((resolve) => {
          signal = () => changes > seen && resolve();
        });
      },
    };
  }

  /**
   * The launcher opens the GET stream that carries server notifications just after the client's `initialized`,
   * which the client does not wait for; give it a moment before changing what the server would announce.
   */
  const streamOpened = () => new Promise((resolve) => setTimeout(resolve, 500));
  const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();
  const text = (result: Awaited<ReturnType<Client['callTool']>>) =>
    (result.content as { type: string; text?: string }[]).map((part) => part.text ?? '').join('');

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'assistant-mcp-e2e-'));
    mkdirSync(join(toolsDir(), 'node_modules', '@assistant'), { recursive: true });
    symlinkSync(
      join(WORKSPACE_ROOT, 'libs/tools/kit'),
      join(toolsDir(), 'node_modules/@assistant/tool-kit'),
      'dir',
    );
    writeFileSync(
      join(toolsDir(), 'orders.mjs'),
      `import { defineTool, z } from '@assistant/tool-kit';
export default defineTool({
  name: 'custom_order_status',
  description: 'Where an order of the shop is',
  input: z.object({ id: z.string() }),
  handler: async ({ id }) => ({ id, status: 'shipped' }),
});
`,
    );
    server = await serve(0);
    const credentials = readCredentials(credentialsFileIn(dataDir))!;
    token = credentials.token;
    api = new AssistantClient({ baseUrl: credentials.base_url, token });
    // SearXNG's JSON API, so that the account can add a web search connection (see tools-web.e2e-spec.ts).
    searxng = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ query: 'x', results: [] }));
    });
    await new Promise<void>((resolve) => searxng.listen(0, '127.0.0.1', resolve));
    searxngUrl = `http://127.0.0.1:${(searxng.address() as AddressInfo).port}`;
  });

  afterEach(async () => {
    for (const client of open.splice(0)) await client.close().catch(() => undefined);
  });

  afterAll(async () => {
    await server?.stop();
    searxng?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("lists exactly the account's active tools and calls them: saves a memory, then finds it", async () => {
    const { client, errors, stderr } = await connect();

    const active = (await api.listTools()).data.filter((tool) => tool.active).map((tool) => tool.name);
    expect(await names(client)).toEqual([...active].sort());
    expect(active).toEqual(expect.arrayContaining(['memory_save', 'memory_search']));

    const saved = await client.callTool({
      name: 'memory_save',
      arguments: { content: 'The MCP launcher test saved this' },
    });
    expect(saved.isError).toBeFalsy();
    const found = await client.callTool({ name: 'memory_search', arguments: { query: 'launcher' } });
    expect(text(found)).toContain('The MCP launcher test saved this');
    expect((await api.listMemories()).data.map((m) => m.content)).toContain(
      'The MCP launcher test saved this',
    );

    expect(errors).toEqual([]);
    expect(stderr()).toBe('');
  });

  it('calls a files tool and a custom tool of the server through the launcher', async () => {
    const { client, errors } = await connect();
    expect(await names(client)).toContain('custom_order_status');
    const written = await client.callTool({
      name: 'files_write',
      arguments: { path: 'mcp.txt', text: 'written over MCP' },
    });
    expect(written.isError).toBeFalsy();
    const read = await client.callTool({ name: 'files_read', arguments: { path: 'mcp.txt' } });
    expect(text(read)).toContain('written over MCP');
    const order = await client.callTool({ name: 'custom_order_status', arguments: { id: 'A-17' } });
    expect(order.structuredContent).toEqual({ id: 'A-17', status: 'shipped' });
    expect(errors).toEqual([]);
  });

  it('relays notifications/tools/list_changed when the account adds a connection', async () => {
    const { client, listChanged } = await connect();
    expect(await names(client)).not.toContain('web_search');
    await streamOpened();
    const changed = listChanged();

    const connection = await api.createConnection({
      body: { family: 'web', provider: 'searxng', settings: { url: searxngUrl } },
    });
    expect(connection).toMatchObject({ status: 'ok' });

    await changed;
    expect(await names(client)).toContain('web_search');
    await api.deleteConnection({ id: connection.id });
  });

  it('starts with a token that may not read the account (403 on /me) and lists only what the token allows', async () => {
    const created = await api.createToken({ body: { name: 'mcp read-only', scopes: ['read:memories'] } });
    const { client } = await connect(created.token);

    expect(await names(client)).toEqual(['memory_search']);
    const refused = await client.callTool({ name: 'memory_save', arguments: { content: 'not allowed' } });
    expect(refused.isError).toBe(true);
  });

  it('carries on when the server restarts: the client gets list_changed and its calls work again', async () => {
    const { client, errors, listChanged } = await connect();
    await client.callTool({ name: 'memory_save', arguments: { content: 'Saved before the restart' } });
    await streamOpened();
    const changed = listChanged();
    const port = Number(new URL(server.url).port);

    await server.stop();
    server = await serve(port);

    // The launcher noticed by itself, opened a new session with the client's own initialize, and said so.
    await changed;
    const found = await client.callTool({ name: 'memory_search', arguments: { query: 'restart' } });
    expect(text(found)).toContain('Saved before the restart');
    expect(errors).toEqual([]);
  });

  it('exits with one line and nothing on stdout when the server refuses the token', async () => {
    const bad = 'asp_notARealToken00000000000000000000';
    const result = await run(BUILT.mcp, ['--url', server.url], { ASSISTANT_API_TOKEN: bad }, '');

    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `assistant-mcp: the server at ${server.url} refused the token (401); create a new one on /profile\n`,
    });
  });
});
