import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { API_PREFIX } from '@assistant/contracts';
import { verifiedCaller, type Principal } from '@assistant/auth';
import { SERVER_CONFIG } from '../core.module';
import type { ServerConfig } from '../config/server-config';
import { PublicAddress } from '../http/public-address';
import { replyWithProblem } from '../http/reply-problem';
import { ToolCatalog } from '../tools/tool-catalog';
import { callMcpTool, mcpToolOf } from './mcp-tools';
import { mcpSdk } from './mcp-sdk';
import { hostAllowed, originAllowed } from './request-origin';

export const MCP_PATH = `${API_PREFIX}/mcp`;

/** One MCP client's session: its transport and server, bound to the account (and application) that opened it. */
interface McpSession {
  transport: StreamableHTTPServerTransport;
  server: Server;
  /** The latest token's principal: its scopes decide what the session lists and may call. */
  principal: Principal;
  stopListening(): void;
}

const INSTRUCTIONS =
  'The tools of the user’s Assistant account: mail, calendar, files, web, smart home and memories, as the account ' +
  'has them and this token allows. Tools that change something say so; ask the user before calling them.';

/**
 * MCP over Streamable HTTP at /api/v1/mcp (protocol 2025-11-25, with the versions the SDK negotiates down to):
 * the same tool catalogue queries use, listed and called with the caller's token's scopes, and
 * `notifications/tools/list_changed` when the account's tools change. Bearer tokens as everywhere; a 401 names
 * this API's protected resource metadata, from which a client finds the authorization server and signs in by
 * itself. Host and Origin are checked (DNS rebinding).
 */
@Injectable()
export class McpEndpoint implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('MCP');
  private readonly sessions = new Map<string, McpSession>();

  constructor(
    private readonly catalog: ToolCatalog,
    private readonly address: PublicAddress,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.route({
      method: ['GET', 'POST', 'DELETE'],
      url: MCP_PATH,
      handler: (request, reply) => this.handle(request, reply),
    });
    // A client's open event stream would keep the server from closing: sessions end first.
    fastify.addHook('preClose', async () => this.closeAll());
  }

  async onApplicationShutdown(): Promise<void> {
    await this.closeAll();
  }

  private async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((session) => session.transport.close()));
  }

  private async handle(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    if (
      !hostAllowed(request.headers.host, this.address.url) ||
      !originAllowed(request.headers.origin, this.address.url)
    ) {
      return replyWithProblem(request, reply, {
        code: 'origin_not_allowed',
        detail: `the MCP endpoint answers only at ${this.address.url} (Host and Origin are checked against DNS rebinding; set ASSISTANT_PUBLIC_URL to the address clients use)`,
      });
    }
    const principal = await this.principalOf(request);
    if (!principal) {
      return replyWithProblem(request, reply, {
        code: 'invalid_token',
        detail:
          'send Authorization: Bearer <token>; an MCP client can get one through OAuth (see resource_metadata)',
        headers: {
          'www-authenticate': `Bearer realm="assistant", error="invalid_token", resource_metadata="${this.address.url}/.well-known/oauth-protected-resource${API_PREFIX}"`,
        },
      });
    }
    const sessionId = request.headers['mcp-session-id'];
    let session = typeof sessionId === 'string' ? this.sessions.get(sessionId) : undefined;
    if (typeof sessionId === 'string' && (!session || !sameCaller(session.principal, principal))) {
      // Unknown (ended, or opened before a restart) or another caller's: the client starts a new session.
      return replyWithProblem(request, reply, { code: 'not_found', detail: 'no MCP session with this id' });
    }
    if (session) session.principal = principal;
    else session = this.open(principal);
    reply.hijack();
    await session.transport.handleRequest(request.raw, reply.raw, request.body);
  }

  private async principalOf(request: FastifyRequest): Promise<Principal | null> {
    const [scheme, secret] = (request.headers.authorization ?? '').split(' ');
    if (scheme?.toLowerCase() !== 'bearer' || !secret) return null;
    // Passport verified it as the request arrived (the rate limiter); this reads that outcome.
    const principal = await verifiedCaller(request);
    // The rate limiter and the activity log read the caller where Nest's guard would have put it.
    if (principal) (request as FastifyRequest & { user?: Principal }).user = principal;
    return principal;
  }

  /** A new session; it is kept once the client's `initialize` went through, and dropped when it ends. */
  private open(principal: Principal): McpSession {
    const { Server, StreamableHTTPServerTransport, CallToolRequestSchema, ListToolsRequestSchema } = mcpSdk();
    const server = new Server(
      { name: 'assistant', title: 'Assistant', version: '0.1.0' },
      { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS },
    );
    const session: McpSession = {
      principal,
      server,
      stopListening: () => undefined,
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          this.sessions.set(id, session);
          session.stopListening = this.catalog.onChange(principal.userId, () => {
            server.sendToolListChanged().catch(() => undefined);
          });
        },
        onsessionclosed: (id) => this.close(id),
      }),
    };
    session.transport.onclose = () => session.transport.sessionId && this.close(session.transport.sessionId);
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: (await this.catalog.forRun(session.principal)).tools.map(mcpToolOf),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (call, extra) => {
      const { tools } = await this.catalog.forRun(session.principal);
      const tool = tools.find((t) => t.name === call.params.name);
      if (!tool) {
        return {
          isError: true,
          content: [
            {
              type: 'text' as const,
              text: `${call.params.name} is not one of this token's tools (tools/list has them): it is unknown, not set up on the account, or needs a scope the token lacks`,
            },
          ],
        };
      }
      return callMcpTool(tool, call.params.arguments, {
        userId: session.principal.userId,
        timeZone: this.config.queries.timeZone,
        signal: extra.signal,
        timeoutMs: this.config.queries.limits.toolTimeoutMs,
      });
    });
    void server.connect(session.transport).catch((error: Error) => this.logger.warn(error.message));
    return session;
  }

  private close(id: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    session.stopListening();
  }
}

/** A session goes on with a newer token of the same caller (an OAuth access token refreshed), never another's. */
function sameCaller(a: Principal, b: Principal): boolean {
  return a.userId === b.userId && a.kind === b.kind && a.clientId === b.clientId;
}
