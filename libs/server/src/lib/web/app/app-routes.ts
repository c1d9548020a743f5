import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '@assistant/contracts';
import { safeUrl } from '../../http/logging';
import { messagePage, notFoundPage, refusedFormPage } from '../../pages/page-parts';
import type { PageRoute } from '../../pages/page-route';
import { serveAppAssets } from './app-assets';
import { AppPages } from './app.pages';

/**
 * Serves the web app as plain Fastify routes, as PageRoutes serves the other pages: every POST must carry its
 * caller's CSRF token (the session's, or a paired device's) before the page's code runs, and an error is a page
 * with nothing internal in it.
 */
@Injectable()
export class AppRoutes implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly pages: AppPages,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    serveAppAssets(fastify);
    for (const route of this.pages.routes()) {
      fastify.route({
        method: route.method,
        url: route.path,
        handler: (request, reply) => this.serve(route, request, reply),
      });
    }
  }

  private async serve(route: PageRoute, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    try {
      if (route.method === 'POST' && !(await this.pages.checkCsrf(request))) return refusedFormPage(reply);
      return await route.handle(request, reply);
    } catch (error) {
      if (error instanceof ProblemError && error.status < 500) {
        if (error.status === 404) return notFoundPage(reply, 'item');
        return messagePage(reply, error.status, 'That did not work', error.detail);
      }
      request.log.error({ err: error, method: request.method, url: safeUrl(request.url) }, 'unhandled error');
      return messagePage(
        reply,
        500,
        'Something went wrong',
        `Something went wrong on our side. If you report it, quote the request id ${request.id}.`,
      );
    }
  }
}
