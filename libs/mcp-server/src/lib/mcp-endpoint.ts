import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_PREFIX, MCP_PATH, PROTOCOL_ROUTES, ProblemError } from '@assistant/contracts';
import { TokenService, verifiedCaller, type Principal } from '@assistant/auth';
import {
  SERVER_CONFIG,
  type ServerConfig,
  PublicAddress,
  replyWithProblem,
  TOOL_CATALOGUE,
  type ToolCatalogue,
  mcpLimitsOf,
} from '@assistant/server-kit';
import { CurrentRevision } from './current-revision';
import { LegacySessions } from './legacy-sessions';
import type { McpServerOf } from './mcp-exchange';
import { mcpSdk, type McpSdk } from './mcp-sdk';
import { mcpServerFor } from './mcp-server';
import { MCP_SESSIONS, type McpSessionStore } from './mcp-sessions';
import { hostAllowed, isLoopbackHost, originAllowed, type OriginPolicy } from './request-origin';
import { webRequestOf } from './web-exchange';

/** Beyond the longest tool call, before a request id of a session counts as answered (its instance crashed). */
const REQUEST_ID_MARGIN_MS = 60_000;

/**
 * MCP over Streamable HTTP at /api/v1/mcp, in every revision the official SDK serves: the current one
 * (2026-07-28, no sessions) and the 2025 ones (sessions kept where every instance sees them), told apart per
 * request. The same tool catalogue queries use, listed and called with the caller's token's scopes, and change
 * notifications when the account's tools change. Any instance serves any request. Bearer tokens as everywhere; a
 * 401 names this API's protected resource metadata, from which a client finds the authorization server and signs
 * in by itself. Host and Origin are checked (DNS rebinding).
 */
@Injectable()
export class McpEndpoint implements OnModuleInit, OnApplicationShutdown {
  /** The requests being answered, to end their streams at shutdown (a client's open stream would hold it). */
  private readonly exchanges = new Set<AbortController>();
  /** It listens on loopback only: pages of this machine may use it from any port (still with a token). */
  private readonly loopbackBound: boolean;
  private legs?: { sdk: McpSdk; legacy: LegacySessions; current: CurrentRevision };

  constructor(
    @Inject(TOOL_CATALOGUE) private readonly catalog: ToolCatalogue,
    private readonly address: PublicAddress,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    private readonly adapterHost: HttpAdapterHost,
    @Inject(MCP_SESSIONS) private readonly sessions: McpSessionStore,
    private readonly tokens: TokenService,
  ) {
    this.loopbackBound = isLoopbackHost(config.host);
  }

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.route({
      method: [...PROTOCOL_ROUTES.mcp.methods],
      url: MCP_PATH,
      handler: (request, reply) => this.handle(request, reply),
    });
    fastify.addHook('preClose', async () => this.closeAll());
  }

  onApplicationShutdown(): void {
    this.closeAll();
  }

  private closeAll(): void {
    for (const exchange of this.exchanges) exchange.abort();
  }

  private async handle(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    // The public address is known once the server listens (port 0 picks one).
    const origins: OriginPolicy = { publicUrl: this.address.url, loopbackBound: this.loopbackBound };
    if (!hostAllowed(request.headers.host, origins) || !originAllowed(request.headers.origin, origins)) {
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
    const exchange = new AbortController();
    this.exchanges.add(exchange);
    reply.raw.once('close', () => {
      exchange.abort();
      this.exchanges.delete(exchange);
    });
    try {
      const legs = this.legsOf();
      const web = webRequestOf(request, this.address.url, exchange.signal);
      const served = { request, reply, principal, web, body: request.body };
      const legacy = await legs.sdk.isLegacyRequest(web, request.body);
      return await (legacy ? legs.legacy : legs.current).serve(served);
    } catch (error) {
      // Redis unreachable (503, try again): the client's answer, unless its stream has started already.
      if (error instanceof ProblemError && !reply.sent) {
        return replyWithProblem(request, reply, {
          code: error.code,
          detail: error.detail,
          headers: error.headers,
        });
      }
      throw error;
    }
  }

  private async principalOf(request: FastifyRequest): Promise<Principal | null> {
    const [scheme, secret] = (request.headers.authorization ?? '').split(' ');
    if (scheme?.toLowerCase() !== 'bearer' || !secret) return null;
    // The rate limiter verified it as the request arrived; this reads that outcome.
    const principal = await verifiedCaller(request, this.tokens);
    // The rate limiter and the activity log read the caller where Nest's guard would have put it.
    if (principal) (request as FastifyRequest & { user?: Principal }).user = principal;
    return principal;
  }

  /** The two legs, made with the SDK when the first MCP request comes. */
  private legsOf(): { sdk: McpSdk; legacy: LegacySessions; current: CurrentRevision } {
    if (this.legs) return this.legs;
    const sdk = mcpSdk();
    const limits = mcpLimitsOf(this.config.mcp);
    const { toolTimeoutMs } = this.config.queries.limits;
    const serverOf: McpServerOf = (principal) =>
      mcpServerFor(sdk, principal, {
        catalog: this.catalog,
        timeZone: this.config.queries.timeZone,
        toolTimeoutMs,
      });
    this.legs = {
      sdk,
      legacy: new LegacySessions({
        sdk,
        sessions: this.sessions,
        catalog: this.catalog,
        serverOf,
        requestLifetimeMs: toolTimeoutMs + REQUEST_ID_MARGIN_MS,
      }),
      current: new CurrentRevision({
        sdk,
        catalog: this.catalog,
        serverOf,
        listenStreamsPerAccount: limits.listenStreamsPerAccount,
      }),
    };
    return this.legs;
  }
}
