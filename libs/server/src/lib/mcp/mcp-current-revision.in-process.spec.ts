import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ALL_SCOPES } from '@assistant/contracts';
import { createAccount } from '../accounts/create-account';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';

/**
 * The MCP revision of 2026-07-28 (no sessions: every request carries its protocol version and the client's
 * capabilities; change notifications on a `subscriptions/listen` stream), served beside the 2025 revisions on the
 * same endpoint, with the official SDK's own client pinned to it.
 */
const LISTEN_STREAMS = 2;
let api: InProcessApp;
let url: string;
beforeAll(async () => {
  api = await startInProcessApp({ config: { mcp: { listenStreamsPerAccount: LISTEN_STREAMS } } });
  url = await api.listen();
});
afterAll(async () => {
  await api?.close();
});

const open: Client[] = [];
afterEach(async () => {
  for (const client of open.splice(0)) await client.close().catch(() => undefined);
});

async function connect(token: string): Promise<Client> {
  const client = new Client(
    { name: 'current-revision-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/api/v1/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  open.push(client);
  return client;
}

const names = async (client: { listTools(): Promise<{ tools: Array<{ name: string }> }> }) =>
  (await client.listTools()).tools.map((tool) => tool.name);

const addWebConnection = (token: string) =>
  api.inject({
    method: 'POST',
    url: '/api/v1/connections',
    token,
    payload: { family: 'web', provider: 'fetch', settings: {} },
  });

describe('MCP 2026-07-28 at /api/v1/mcp', () => {
  it('is discovered as the current revision, names the package version, lists and calls the token’s tools', async () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    const client = await connect(api.token);
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getServerVersion()).toMatchObject({ name: 'assistant', version: manifest.version });

    const catalogue = (await api.inject({ method: 'GET', url: '/api/v1/tools' })).json().data as Array<{
      name: string;
      active: boolean;
    }>;
    expect(await names(client)).toEqual(catalogue.filter((t) => t.active).map((t) => t.name));
    const saved = await client.callTool({
      name: 'memory_save',
      arguments: { content: 'the modern gate code is 99' },
    });
    expect(saved.structuredContent).toMatchObject({ content: 'the modern gate code is 99' });

    const readOnly = await connect(await api.issueToken(['read:memories']));
    expect(await names(readOnly)).toEqual(['memory_search']);
    const refused = await readOnly.callTool({ name: 'memory_save', arguments: { content: 'sneaky' } });
    expect(refused.isError).toBe(true);
  });

  it('serves a 2025 client and a current one side by side', async () => {
    const legacy = new LegacyClient({ name: 'legacy-test', version: '1.0.0' });
    await legacy.connect(
      new LegacyTransport(new URL(`${url}/api/v1/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${api.token}` } },
      }),
    );
    const modern = await connect(api.token);
    expect(await names(legacy)).toEqual(await names(modern));
    await legacy.close();
  });

  it("tells a listening client of its own account's tool changes, never of another account's", async () => {
    const other = await createAccount(api.storage, {
      email: 'listen-other@example.test',
      scopes: ALL_SCOPES,
    });
    const client = await connect(api.token);
    let changes = 0;
    client.setNotificationHandler('notifications/tools/list_changed', async () => void changes++);
    const subscription = await client.listen({ toolsListChanged: true });
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });

    expect((await addWebConnection(other.token)).statusCode).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(changes).toBe(0);

    expect((await addWebConnection(api.token)).statusCode).toBe(201);
    for (let i = 0; i < 50 && changes === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(changes).toBe(1);
    await subscription.close();
  });

  it('keeps to a number of listening streams per account', async () => {
    const client = await connect(api.token);
    const streams = [];
    for (let i = 0; i < LISTEN_STREAMS; i++) streams.push(await client.listen({ toolsListChanged: true }));
    await expect(client.listen({ toolsListChanged: true })).rejects.toThrow(/limit/i);
    // Another account has streams of its own.
    const other = await createAccount(api.storage, { email: 'listen-cap@example.test', scopes: ALL_SCOPES });
    const theirs = await (await connect(other.token)).listen({ toolsListChanged: true });
    await theirs.close();
    // A closed stream frees its place.
    await streams.pop()!.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    streams.push(await client.listen({ toolsListChanged: true }));
    for (const stream of streams) await stream.close();
  });
});

describe('MCP 2026-07-28 beside the 2025 revisions', () => {
  it('answers a revision it does not serve with -32022, naming the ones it does', async () => {
    const res = await fetch(`${url}/api/v1/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${api.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2099-01-01',
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2099-01-01',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      id: 1,
      error: {
        code: -32022,
        data: { supported: expect.arrayContaining(['2026-07-28']), requested: '2099-01-01' },
      },
    });
  });

  it('ends the open event streams of both revisions when the server stops', async () => {
    const stopping = await startInProcessApp();
    const base = await stopping.listen();
    const legacy = new LegacyClient({ name: 'legacy-test', version: '1.0.0' });
    await legacy.connect(
      new LegacyTransport(new URL(`${base}/api/v1/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${stopping.token}` } },
      }),
    );
    const modern = new Client(
      { name: 'current-revision-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await modern.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/api/v1/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${stopping.token}` } },
      }),
    );
    const subscription = await modern.listen({ toolsListChanged: true });
    // The 2025 client opens its event stream just after initializing.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    await stopping.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await subscription.closed).not.toBe('local');
    await legacy.close();
    await modern.close();
  });
});
