import type { FastifyReply, FastifyRequest } from 'fastify';
import { PAGE_PATHS, type PageRoute } from './page-route';

/** The account a request's browser is signed in as (WebSessions.userIdFor), or null. */
export type SignedInAccount = (request: FastifyRequest) => Promise<string | null>;

/**
 * Runs `then` for the account the browser is signed in as; any other browser is sent to sign in, and back
 * afterwards to `returnTo`: by default the page itself after a GET (a page asked for by its address comes back to
 * itself), /profile after a POST (a form is not posted again).
 */
export async function whenSignedIn(
  accountOf: SignedInAccount,
  request: FastifyRequest,
  reply: FastifyReply,
  then: (userId: string) => Promise<unknown>,
  returnTo: string = request.method === 'GET' ? request.url : PAGE_PATHS.profile,
): Promise<unknown> {
  const userId = await accountOf(request);
  if (userId) return then(userId);
  return reply.redirect(`${PAGE_PATHS.signIn}?return_to=${encodeURIComponent(returnTo)}`, 303);
}

/** A page route that only a signed-in browser gets: `handle` is given its account (see whenSignedIn). */
export function signedInPage(
  accountOf: SignedInAccount,
  method: PageRoute['method'],
  path: string,
  handle: (request: FastifyRequest, reply: FastifyReply, userId: string) => Promise<unknown>,
): PageRoute {
  return {
    method,
    path,
    handle: (request, reply) =>
      whenSignedIn(accountOf, request, reply, (userId) => handle(request, reply, userId)),
  };
}
