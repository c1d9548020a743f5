/**
 * A STAND-IN for the Assistant server's MCP endpoint, for the launcher's own tests. The real endpoint
 * (libs/mcp-server/, served by `assistant serve` and the hosted API) was being built at the same time; the
 * end-to-end test against it is apps/api-e2e/src/mcp-launcher.e2e-spec.ts.
 *
 * It offers only what the launcher relies on, built from the MCP SDK's own McpServer and
 * StreamableHTTPServerTransport on node:http:
 * - `GET /api/v1/me`: 200 for a known token, 403 for a known token without `read:account`, 401 otherwise;
 * - `POST/GET/DELETE /api/v1/mcp`: Streamable HTTP with stateful sessions (`Mcp-Session-Id`, 404 for an unknown one),
 *   bearer auth (401 with `WWW-Authenticate: Bearer … resource_metadata="…"`);
 * - tools `echo` and `slow`, and `addTool()` to add one to every session, which sends
 *   `notifications/tools/list_changed` on their GET streams (as adding a connection does on the real server).
 * stop() drops every connection at once, as a crashed or restarting server does; breakToolCalls() only those of the
 * tool calls under way.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

export interface StandInOptions {
  /** 0 (the default) for any free port; the port of a stopped stand-in to "restart" it. */
  port?: number;
  /** Tokens that may use the MCP endpoint; `readAccount: false` makes GET /me answer 403 for it. */
  tokens: { token: string; readAccount?: boolean }[];
  /** Tools added with addTool() before a restart, so that the new server offers them too. */
  extraTools?: string[];
}

export interface RecordedRequest {
  method: string;
  path: string;
  sessionId: string | undefined;
  /** The JSON-RPC method of a POST, when it is one message. */
  rpc: string | undefined;
  /** `MCP-Protocol-Version`, which a client sends after initialize. */
  protocolVersion: string | undefined;
}

export interface StandIn {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Sessions opened so far (initialize requests answered). */
  sessionsOpened(): number;
  /** Sessions ended by the client with DELETE. */
  sessionsDeleted(): number;
  addTool(name: string): void;
  /** tools/call requests whose response (an SSE stream) has begun and not ended. */
  toolCallsStreaming(): number;
  /** Cuts the connections of the tools/call requests under way, as a proxy's timeout would; the server goes on. */
  breakToolCalls(): void;
  revoke(token: string): void;
  stop(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
}

export async function startStandIn(options: StandInOptions): Promise<StandIn> {
  const tokens = new Map(
    options.tokens.map(({ token, readAccount }) => [token, { readAccount: readAccount ?? true }]),
  );
  const extraTools = [...(options.extraTools ?? [])];
  const sessions = new Map<string, Session>();
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const toolCalls = new Set<ServerResponse>();
  let opened = 0;
  let deleted = 0;
  let base = '';

  const newMcpServer = (): McpServer => {
    const server = new McpServer(
      { name: 'assistant-stand-in', version: '0.0.0' },
      { capabilities: { tools: { listChanged: true } } },
    );
    server.registerTool(
      'echo',
      {
        description: 'Says the text back',
        inputSchema: { text: z.string() },
        annotations: { readOnlyHint: true },
      },
      async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
    );
    server.registerTool(
      'slow',
      { description: 'Answers after ms milliseconds', inputSchema: { ms: z.number() } },
      async ({ ms }) => {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            timers.delete(timer);
            resolve();
          }, ms);
          timers.add(timer);
        });
        return { content: [{ type: 'text', text: `slept ${ms} ms` }] };
      },
    );
    for (const name of extraTools) registerExtra(server, name);
    return server;
  };

  const unauthorized = (res: ServerResponse): void => {
    res.writeHead(401, {
      'content-type': 'application/problem+json',
      'www-authenticate': `Bearer realm="assistant", error="invalid_token", resource_metadata="${base}/.well-known/oauth-protected-resource/api/v1/mcp"`,
    });
    res.end(
      JSON.stringify({
        status: 401,
        code: 'invalid_token',
        detail: 'the token is missing, unknown or revoked',
      }),
    );
  };

  const jsonRpcError = (res: ServerResponse, status: number, message: string): void => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', base).pathname;
    const sessionId = header(req, 'mcp-session-id');
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    requests.push({
      method: req.method ?? '',
      path,
      sessionId,
      rpc: body && typeof body === 'object' && 'method' in body ? String(body.method) : undefined,
      protocolVersion: header(req, 'mcp-protocol-version'),
    });
    if (body && typeof body === 'object' && 'method' in body && body.method === 'tools/call') {
      toolCalls.add(res);
      res.on('close', () => toolCalls.delete(res));
    }
    const token = /^Bearer (\S+)$/.exec(header(req, 'authorization') ?? '')?.[1];
    const known = token === undefined ? undefined : tokens.get(token);

    if (path === '/api/v1/me' && req.method === 'GET') {
      if (!known) return unauthorized(res);
      if (!known.readAccount) {
        res.writeHead(403, {
          'content-type': 'application/problem+json',
          'www-authenticate': 'Bearer realm="assistant", error="insufficient_scope", scope="read:account"',
        });
        res.end(JSON.stringify({ status: 403, code: 'insufficient_scope', detail: 'needs read:account' }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'usr_standin', display_name: 'Stand-in' }));
      return;
    }
    if (path !== '/api/v1/mcp') {
      res.writeHead(404).end();
      return;
    }
    if (!known) return unauthorized(res);

    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (!session) return jsonRpcError(res, 404, 'Session not found');
      if (req.method === 'DELETE') deleted++;
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return jsonRpcError(res, 400, 'Bad Request: No valid session ID provided');
    }
    const server = newMcpServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        opened++;
        sessions.set(id, { transport, server });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;

  return {
    url: base,
    port,
    requests,
    sessionsOpened: () => opened,
    sessionsDeleted: () => deleted,
    addTool(name) {
      extraTools.push(name);
      // registerTool on a connected McpServer sends notifications/tools/list_changed on the session's GET stream.
      for (const { server } of sessions.values()) registerExtra(server, name);
    },
    toolCallsStreaming: () => [...toolCalls].filter((res) => res.headersSent).length,
    breakToolCalls() {
      for (const res of toolCalls) res.socket?.destroy();
    },
    revoke(token) {
      tokens.delete(token);
    },
    async stop() {
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      sessions.clear();
      for (const timer of timers) clearTimeout(timer);
      await closed;
    },
  };
}

function registerExtra(server: McpServer, name: string): void {
  server.registerTool(name, { description: `A tool added later (${name})` }, async () => ({
    content: [{ type: 'text', text: `${name} ran` }],
  }));
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}
