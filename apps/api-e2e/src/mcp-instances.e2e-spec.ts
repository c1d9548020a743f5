import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  Client as CurrentClient,
  StreamableHTTPClientTransport as CurrentTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ApiClient } from './support/http';
import { startHostedDeployment, type HostedDeployment } from './support/hosted-deployment';
import { freePort } from './support/private-services';
import { BUILT, childEnv } from './support/processes';

/**
 * MCP on a hosted deployment of two instances behind one load balancer that knows nothing of MCP: whichever
 * instance a request lands on serves it. A 2025 client's session opened on one instance goes on on the other,
 * hears there of changes made on the first, and outlives the instance that opened it; a client of the current
 * revision (2026-07-28, no sessions) is served request by request by either.
 */
describe('MCP on two hosted instances behind a proxy without affinity', () => {
  let deployment: HostedDeployment;
  let proxy: RoutingProxy;
  let a: ApiClient;
  let b: ApiClient;
  const closers: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    const port = await freePort();
    // Both instances answer under the proxy's address, as behind nginx.
    deployment = await startHostedDeployment(2, { ASSISTANT_PUBLIC_URL: `http://127.0.0.1:${port}` });
    const [first, second] = deployment.instances;
    a = new ApiClient(first!.url, deployment.ownerToken);
    b = new ApiClient(second!.url, deployment.ownerToken);
    proxy = await RoutingProxy.start(
      port,
      deployment.instances.map((instance) => Number(new URL(instance.url).port)),
    );
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close().catch(() => undefined);
  });
  afterAll(async () => {
    await proxy?.close();
    await deployment?.stop();
  });

  const endpoint = () => new URL(`${proxy.url}/api/v1/mcp`);
  let connections = 0;
  /** A connection of the account, added through the given instance: the account's tools change. */
  const addConnection = async (api: ApiClient) => {
    const created = await api.post('/connections', {
      family: 'web',
      provider: 'fetch',
      name: `Fetch ${++connections}`,
      settings: {},
    });
    expect(created.status).toBe(201);
  };
  const within = <T>(promise: Promise<T>, ms: number, what: string) =>
    Promise.race([
      promise,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms).unref(),
      ),
    ]);

  /** The SDK's 2025 client over Streamable HTTP, counting `list_changed`. */
  async function legacyClient(): Promise<{ client: Client; changed(): Promise<void> }> {
    const client = new Client({ name: 'mcp-instances-e2e', version: '0.0.0' });
    let signal: () => void = () => undefined;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => signal());
    await client.connect(
      new StreamableHTTPClientTransport(endpoint(), {
        requestInit: { headers: { authorization: `Bearer ${deployment.ownerToken}` } },
      }),
    );
    closers.push(() => client.close());
    return { client, changed: () => new Promise<void>((resolve) => (signal = resolve)) };
  }

  it('initialize on one instance, tools listed and called on the other, which delivers list_changed for a change on the first', async () => {
    proxy.route = (method) => (method === 'initialize' ? 0 : 1);
    const since = proxy.mark();
    const { client, changed } = await legacyClient();
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['memory_save', 'memory_search']));
    await client.callTool({ name: 'memory_save', arguments: { content: 'saved across instances' } });
    const found = await client.callTool({ name: 'memory_search', arguments: { query: 'across instances' } });
    expect(JSON.stringify(found.content)).toContain('saved across instances');
    expect(proxy.served('initialize', since)).toEqual([0]);
    expect(proxy.served('tools/list', since)).toEqual([1]);
    expect(proxy.served('tools/call', since)).toEqual([1, 1]);

    // The client's event stream is held by the second instance; the change is made on the first.
    await proxy.waitFor('GET', 1, { since });
    const notified = changed();
    await addConnection(a);
    await within(notified, 5_000, 'list_changed');
  });

  it('serves a client of the current revision request by request, and its listening stream hears of changes made elsewhere', async () => {
    const byMethod: Record<string, number> = { 'server/discover': 0, 'tools/list': 1, 'tools/call': 0 };
    proxy.route = (method) => byMethod[method] ?? 1;
    const client = new CurrentClient(
      { name: 'mcp-instances-e2e', version: '0.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new CurrentTransport(endpoint(), {
        requestInit: { headers: { authorization: `Bearer ${deployment.ownerToken}` } },
      }),
    );
    closers.push(() => client.close());
    expect(client.getProtocolEra()).toBe('modern');
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['memory_save', 'memory_search']));
    const saved = await client.callTool({
      name: 'memory_save',
      arguments: { content: 'saved by a current client' },
    });
    expect(saved.isError).toBeFalsy();
    expect(proxy.served('server/discover').at(-1)).toBe(0);
    expect(proxy.served('tools/list').at(-1)).toBe(1);
    expect(proxy.served('tools/call').at(-1)).toBe(0);

    let signal: () => void = () => undefined;
    const notified = new Promise<void>((resolve) => (signal = resolve));
    client.setNotificationHandler('notifications/tools/list_changed', async () => signal());
    const subscription = await client.listen({ toolsListChanged: true });
    expect(proxy.served('subscriptions/listen').at(-1)).toBe(1);
    await addConnection(a);
    await within(notified, 5_000, 'list_changed on the listening stream');
    await subscription.close();
  });

  /** The launcher (`assistant-mcp --verbose`, built) in front of the proxy, as an MCP client starts it. */
  async function launcher(): Promise<{ client: Client; stderr(): string }> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BUILT.mcp, '--url', proxy.url, '--verbose'],
      env: childEnv({ ASSISTANT_API_TOKEN: deployment.ownerToken }) as Record<string, string>,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk) => (stderr += chunk));
    const client = new Client({ name: 'mcp-instances-e2e', version: '0.0.0' });
    await client.connect(transport);
    closers.push(() => client.close());
    return { client, stderr: () => stderr };
  }

  it('the launcher keeps one session while its requests alternate between the instances', async () => {
    let next = 0;
    proxy.route = () => next++ % 2;
    const since = proxy.mark();
    const { client, stderr } = await launcher();
    for (let i = 0; i < 4; i++) {
      await client.callTool({ name: 'memory_save', arguments: { content: `alternating ${i}` } });
    }
    const found = await client.callTool({ name: 'memory_search', arguments: { query: 'alternating' } });
    expect(JSON.stringify(found.content)).toContain('alternating 3');
    expect(new Set(proxy.served('tools/call', since))).toEqual(new Set([0, 1]));
    expect(stderr()).toContain('session 1 opened');
    expect(stderr()).not.toMatch(/session 1 ended|session 2 opened/);
  });

  // Last: the first instance does not come back.
  it('a session outlives the instance that opened it and held its stream: the client and the launcher carry on with the other', async () => {
    proxy.route = () => 0;
    const opened = proxy.mark();
    const { client, changed } = await legacyClient();
    await client.listTools();
    const relayed = await launcher();
    await relayed.client.callTool({ name: 'memory_save', arguments: { content: 'saved before the kill' } });
    await proxy.waitFor('GET', 0, { since: opened });

    const [first] = deployment.instances;
    const exited = new Promise((resolve) => first!.child.once('exit', resolve));
    first!.child.kill('SIGKILL');
    await exited;
    const killed = proxy.mark();

    // The proxy finds the first instance gone and passes every request to the second, as nginx does.
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['memory_save']));
    expect(proxy.served('tools/list').at(-1)).toBe(1);
    // Both open their event streams again, on the second instance, and hear of changes there.
    await proxy.waitFor('GET', 1, { since: killed, timeoutMs: 10_000, count: 2 });
    const notified = changed();
    await addConnection(b);
    await within(notified, 5_000, 'list_changed after the kill');

    // The launcher carries on too, in the session it had.
    const found = await relayed.client.callTool({
      name: 'memory_search',
      arguments: { query: 'before the kill' },
    });
    expect(JSON.stringify(found.content)).toContain('saved before the kill');
    expect(relayed.stderr()).not.toMatch(/session 2 opened/);
  });
});

/**
 * An HTTP proxy in front of the instances that picks one per request by a rule of the test (by JSON-RPC method),
 * keeps the Host header (the instances answer under the proxy's address), and passes a request to the next
 * instance when the chosen one cannot take it, as nginx's `proxy_next_upstream error` does.
 */
class RoutingProxy {
  /** Which instance (by index) serves a request with this JSON-RPC method (or HTTP method, for GET and DELETE). */
  route: (method: string) => number = () => 0;
  private readonly log: Array<{ method: string; instance: number }> = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly ports: number[],
  ) {}

  static async start(port: number, ports: number[]): Promise<RoutingProxy> {
    const server = createServer();
    const proxy = new RoutingProxy(server, `http://127.0.0.1:${port}`, ports);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void proxy.handle(req, res));
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return proxy;
  }

  /** The instances that served the requests of a method, in order (since the `mark`-th request). */
  served(method: string, mark = 0): number[] {
    return this.log
      .slice(mark)
      .filter((entry) => entry.method === method)
      .map((entry) => entry.instance);
  }

  /** How many requests it passed on so far. */
  mark(): number {
    return this.log.length;
  }

  /** Until `count` requests of the method reached the instance (since the `since`-th request). */
  async waitFor(
    method: string,
    instance: number,
    { timeoutMs = 5_000, since = 0, count = 1 } = {},
  ): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.served(method, since).filter((served) => served === instance).length < count) {
      if (Date.now() > deadline) throw new Error(`no ${method} reached instance ${instance}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const method = rpcMethod(body) ?? req.method ?? 'GET';
    const first = this.route(method);
    for (const instance of [first, ...this.ports.keys()].filter((i, n, all) => all.indexOf(i) === n)) {
      if (await this.forward(instance, req, body, res)) {
        this.log.push({ method, instance });
        return;
      }
    }
    res.writeHead(502).end();
  }

  /** False when the instance refused the connection (nothing was sent to it). */
  private forward(
    instance: number,
    req: IncomingMessage,
    body: Buffer,
    res: ServerResponse,
  ): Promise<boolean> {
    return new Promise((resolve) => {
      let answered = false;
      const upstream = request(
        {
          host: '127.0.0.1',
          port: this.ports[instance],
          method: req.method,
          path: req.url,
          headers: req.headers,
          // A connection per request: none left over from an instance that was killed.
          agent: false,
        },
        (answer) => {
          answered = true;
          // A connection per request on the client's side too: no client reuses a connection that a dead
          // instance's answer ended (which would be the proxy's doing, not the API's).
          const { connection: _connection, 'keep-alive': _keepAlive, ...headers } = answer.headers;
          res.writeHead(answer.statusCode ?? 502, { ...headers, connection: 'close' });
          answer.pipe(res);
          // The instance died mid-answer (an event stream): the client's answer ends there too.
          answer.on('close', () => answer.complete || res.end());
          resolve(true);
        },
      );
      upstream.on('error', (error: NodeJS.ErrnoException) => {
        // Mid-answer: the answer ends there (above), the client's connection stays usable.
        if (answered) res.end();
        // Before an answer, nginx passes the request to the next instance when the connection was refused, or
        // whatever the error when the method is idempotent (its default `proxy_next_upstream error timeout`).
        else if (error.code === 'ECONNREFUSED' || req.method === 'GET') resolve(false);
        else {
          res.destroy();
          resolve(true);
        }
      });
      res.on('close', () => upstream.destroy());
      upstream.end(body);
    });
  }
}

function rpcMethod(body: Buffer): string | undefined {
  if (body.length === 0) return undefined;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { method?: unknown } | Array<{ method?: unknown }>;
    const message = Array.isArray(parsed) ? parsed[0] : parsed;
    return typeof message?.method === 'string' ? message.method : undefined;
  } catch {
    return undefined;
  }
}
