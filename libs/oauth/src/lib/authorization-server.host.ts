import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { TokenService } from '@assistant/auth';
import type { Storage } from '@assistant/storage';
import {
  SERVER_CONFIG,
  STORAGE,
  type ServerConfig,
  PublicAddress,
  WebSessions,
  ProviderSessions,
  secretsKeyOf,
} from '@assistant/server-kit';
import { createAuthorizationServer, providerCallback, type Provider } from './authorization-server';
import { isAuthorizationRequest, isProviderRequest } from './provider-routes';
import { handedOverAtPublicAddress, providerResponse } from './provider-request';

/** Purges expired codes, tokens and interactions this often. */
const PURGE_EVERY_MS = 60 * 60_000;
/** How long what an application did stays on the account's profile. */
const ACTIVITY_KEPT_MS = 30 * 24 * 3600_000;

/**
 * The authorization server of this deployment, mounted in a Fastify `onRequest` hook (after the rate limiter's):
 * its requests (those `isProviderRequest` names) reach it before Fastify parses a body, as received at the public
 * address and with the reply's headers so far. Not through @fastify/middie, as oidc-provider
 * suggests: middie normalizes and matches the URL of every request (~4 µs each), where one prefix test will do.
 * Built on the first OAuth request, once the server's public address — the issuer — is known.
 */
@Injectable()
export class AuthorizationServerHost implements OnModuleInit {
  private readonly logger = new Logger('OAuth');
  private provider?: Promise<Provider>;
  private handle?: Promise<(req: IncomingMessage, res: ServerResponse) => Promise<void>>;

  constructor(
    @Inject(STORAGE) private readonly storage: Storage,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    private readonly address: PublicAddress,
    private readonly tokens: TokenService,
    private readonly adapterHost: HttpAdapterHost,
    private readonly sessions: WebSessions,
    private readonly providerSessions: ProviderSessions,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    // A callback hook, not an async one: every request passes here, and only the provider's are awaited.
    fastify.addHook('onRequest', (request, reply, done) => {
      if (!isProviderRequest(request.method, request.url)) return done();
      this.handOver(request, reply).then(() => undefined, done);
    });
    const purge = setInterval(() => void this.purge(), PURGE_EVERY_MS);
    purge.unref();
  }

  /** Hands a request the provider serves over to it, whole (Fastify lets go of it: no later hook, no reply). */
  private async handOver(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    // An authorization follows the pages' sign-in: the provider never decides one on a session of someone else.
    if (isAuthorizationRequest(request.method, request.url)) {
      await this.providerSessions.endUnlessOf(request, await this.sessions.userIdFor(request));
    }
    const req = handedOverAtPublicAddress(request, this.address);
    const res = providerResponse(reply);
    // Fastify lets go of the request (no later hook, no handler, no reply of its own): the provider answers it.
    reply.hijack();
    try {
      const handle = await this.handler();
      await handle(req, res);
    } catch (error) {
      if (res.headersSent) return;
      this.logger.error(`the authorization server could not start: ${(error as Error).message}`);
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'temporarily_unavailable', error_description: 'try again later' }));
    }
  }

  /** Expired codes, tokens and interactions, and integration activity older than it is kept. */
  private async purge(): Promise<void> {
    await this.storage.oauth.purgeExpired().catch(() => undefined);
    const before = new Date(Date.now() - ACTIVITY_KEPT_MS);
    await this.storage.integrationActivity.forget({ before }).catch(() => undefined);
  }

  /** The provider, built once. */
  get(): Promise<Provider> {
    this.provider ??= createAuthorizationServer({
      storage: this.storage,
      address: this.address,
      tokens: this.tokens,
      secret: secretsKeyOf(this.config),
      allowPrivateHosts: this.config.allowPrivateHosts,
    });
    return this.provider;
  }

  private handler() {
    this.handle ??= this.get().then(providerCallback);
    return this.handle;
  }
}
