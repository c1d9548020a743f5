import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { TokenService } from '@assistant/auth';
import type { Storage } from '@assistant/storage';
import { SERVER_CONFIG, STORAGE } from '../core.module';
import type { ServerConfig } from '../config/server-config';
import { PublicAddress } from '../http/public-address';
import { secretsKeyOf } from '../connections/secret-box';
import {
  createAuthorizationServer,
  INTERACTION_PATH,
  providerCallback,
  type Provider,
} from './authorization-server';

/** Purges expired codes, tokens and interactions this often. */
const PURGE_EVERY_MS = 60 * 60_000;
/** How long what an application did stays on the account's profile. */
const ACTIVITY_KEPT_MS = 30 * 24 * 3600_000;

/** What the authorization server answers itself: its routes under /oauth/ (but our pages) and its metadata. */
function isProviderPath(url: string): boolean {
  const path = url.split('?')[0];
  if (path.startsWith(`${INTERACTION_PATH}/`)) return false;
  return (
    path.startsWith('/oauth/') ||
    path === '/.well-known/oauth-authorization-server' ||
    path === '/.well-known/openid-configuration'
  );
}

/**
 * The authorization server of this deployment, mounted in a Fastify `onRequest` hook (after the rate limiter's):
 * its requests reach it untouched, before Fastify parses a body. Not through @fastify/middie, as oidc-provider
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
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onRequest', (request, reply, done) => {
      if (!isProviderPath(request.url)) return done();
      // Fastify lets go of the request (no later hook, no handler, no reply of its own): the provider answers it.
      reply.hijack();
      const { raw: req } = request;
      const { raw: res } = reply;
      this.handler().then(
        (handle) => handle(req, res),
        (error: Error) => {
          this.logger.error(`the authorization server could not start: ${error.message}`);
          res.writeHead(503, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: 'temporarily_unavailable', error_description: 'try again later' }));
        },
      );
    });
    const purge = setInterval(() => void this.purge(), PURGE_EVERY_MS);
    purge.unref();
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
      trustProxy: this.config.trustProxy,
    });
    return this.provider;
  }

  private handler() {
    this.handle ??= this.get().then(providerCallback);
    return this.handle;
  }
}
