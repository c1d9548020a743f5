import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '@assistant/contracts';
import { safeUrl } from '../http/logging';
import { messagePage, notFoundPage, refusedFormPage } from './page-parts';
import type { PageRoute } from './page-route';

/** Whether a form's POST carries its caller's CSRF token. */
export type CsrfCheck = (request: FastifyRequest) => Promise<boolean>;

/**
 * Serves pages as plain Fastify routes, beside Nest's: they are HTML for browsers, not API routes, so they stay
 * out of /api/v1, its bearer-token guard, its contract check and its problem+json errors. Every POST must carry
 * its caller's CSRF token (refused with a 403 page before the page's own code runs), and an error becomes a page
 * too, with nothing internal in it. Every page of the server is served through here, so none can forget either.
 */
export function servePages(fastify: FastifyInstance, routes: readonly PageRoute[], csrfOk: CsrfCheck): void {
  for (const route of routes) {
    fastify.route({
      method: route.method,
      url: route.path,
      handler: async (request, reply) => {
        try {
          if (route.method === 'POST' && !(await csrfOk(request))) return refusedFormPage(reply);
          return await route.handle(request, reply);
        } catch (error) {
          return errorPage(error, request, reply);
        }
      },
    });
  }
}

function errorPage(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
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
