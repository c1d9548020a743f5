import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ENDPOINTS, routePattern, type Scope } from '@assistant/contracts';
import type { Principal } from '@assistant/auth';
import type { IntegrationActivityRepository } from '@assistant/storage';
import { InjectRepository } from '@assistant/server-kit';

/** The same thing by the same application is noted once a minute at most: the profile shows what, not how often. */
const SAME_ENTRY_MS = 60_000;

/**
 * Notes what third-party applications do with an account — each endpoint an OAuth access token was used on, with
 * the scope it needed — for the account's profile. Written after the response, never in its way.
 */
@Injectable()
export class IntegrationActivity implements OnModuleInit {
  private readonly scopes = new Map<string, Scope | null>(
    ENDPOINTS.map((e) => [`${e.method} ${routePattern(e)}`, e.scope] as const),
  );
  private readonly noted = new Map<string, number>();

  constructor(
    @InjectRepository('integrationActivity')
    private readonly integrationActivity: IntegrationActivityRepository,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    // A callback hook, not an async one: it runs after every response, and most callers are no application.
    fastify.addHook('onResponse', (request, _reply, done) => {
      this.note(request);
      done();
    });
  }

  private note(request: FastifyRequest): void {
    const principal = (request as FastifyRequest & { user?: Principal }).user;
    if (principal?.kind !== 'oauth_access' || !principal.clientId) return;
    const what = `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]}`;
    const key = `${principal.userId} ${principal.clientId} ${what}`;
    const now = Date.now();
    if (now - (this.noted.get(key) ?? 0) < SAME_ENTRY_MS) return;
    this.noted.set(key, now);
    if (this.noted.size > 10_000) this.noted.clear();
    // Informative only: failing to note it must not fail anything.
    void this.integrationActivity
      .record(principal.userId, principal.clientId, {
        at: new Date(now),
        what,
        scope: this.scopes.get(what) ?? null,
      })
      .catch(() => this.noted.delete(key));
  }
}
