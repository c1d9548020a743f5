import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import {
  contributionsOf,
  CSRF_FIELD,
  formText,
  SitePages,
  type PageProvider,
  servePages,
  STYLESHEET,
  STYLESHEET_PATH,
  WebSessions,
} from '@assistant/server-kit';

/**
 * Serves every provider marked `@SitePages()`, whichever feature's module it is in — sign-in, profile, password,
 * connection and application pages — through servePages: the session's CSRF token on every POST, error pages.
 */
@Injectable()
export class PageRoutes implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly sessions: WebSessions,
    private readonly discovery: DiscoveryService,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.get(STYLESHEET_PATH, async (_request, reply) =>
      reply.header('cache-control', 'public, max-age=3600').type('text/css; charset=utf-8').send(STYLESHEET),
    );
    const routes = contributionsOf<PageProvider, void>(this.discovery, SitePages).flatMap(({ instance }) =>
      instance.routes(),
    );
    servePages(fastify, routes, (request) => this.sessions.checkCsrf(request, formText(request, CSRF_FIELD)));
  }
}
