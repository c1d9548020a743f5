import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '@assistant/contracts';
import { safeUrl } from '../http/logging';
import { CSRF_FIELD, formText } from '../pages/forms';
import { messagePage, notFoundPage, refusedFormPage } from '../pages/page-parts';
import type { PageRoute } from '../pages/page-route';
import { STYLESHEET, STYLESHEET_PATH } from '../pages/stylesheet';
import { WebSessions } from '../sessions/web-sessions';
import { SignInPages } from './sign-in.pages';
import { ProfilePages } from './profile/profile.pages';
import { PasswordPages } from './password.pages';
import { ConnectionPages } from './profile/connection.pages';
import { OAuthConnectPages } from './profile/oauth-connect.pages';

/**
 * Serves the pages as plain Fastify routes, beside Nest's: they are HTML for browsers, not API routes, so they
 * stay out of /api/v1, its bearer-token guard, its contract check and its problem+json errors. Every POST must
 * carry the session's CSRF token (refused with a 403 page before the page's own code runs), and an error becomes
 * a page too, with nothing internal in it.
 */
@Injectable()
export class PageRoutes implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly sessions: WebSessions,
    private readonly signIn: SignInPages,
    private readonly profile: ProfilePages,
    private readonly connections: ConnectionPages,
    private readonly passwords: PasswordPages,
    private readonly oauthConnect: OAuthConnectPages,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.get(STYLESHEET_PATH, async (_request, reply) =>
      reply.header('cache-control', 'public, max-age=3600').type('text/css; charset=utf-8').send(STYLESHEET),
    );
    for (const route of [
      ...this.signIn.routes(),
      ...this.profile.routes(),
      ...this.connections.routes(),
      ...this.passwords.routes(),
      ...this.oauthConnect.routes(),
    ]) {
      fastify.route({
        method: route.method,
        url: route.path,
        handler: (request, reply) => this.serve(route, request, reply),
      });
    }
  }

  private async serve(route: PageRoute, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    try {
      if (
        route.method === 'POST' &&
        !(await this.sessions.checkCsrf(request, formText(request, CSRF_FIELD)))
      ) {
        return refusedFormPage(reply);
      }
      return await route.handle(request, reply);
    } catch (error) {
      return this.errorPage(error, request, reply);
    }
  }

  private errorPage(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    if (error instanceof ProblemError && error.status < 500) {
      if (error.status === 404) return notFoundPage(reply, 'item');
      return messagePage(reply, error.status, 'That did not work', error.detail);
    }
    // A bug: the details go to the log under the request id, never into the page.
    request.log.error({ err: error, method: request.method, url: safeUrl(request.url) }, 'unhandled error');
    return messagePage(
      reply,
      500,
      'Something went wrong',
      `Something went wrong on our side. If you report it, quote the request id ${request.id}.`,
    );
  }
}
