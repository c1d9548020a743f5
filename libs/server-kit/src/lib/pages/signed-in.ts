import type { FastifyReply, FastifyRequest } from 'fastify';
import { PAGE_PATHS } from './page-route';

/** The account a request's browser is signed in as (WebSessions.userIdFor), or null. */
export type SignedInAccount = (request: FastifyRequest) => Promise<string | null>;

/**
 * Runs `then` for the account the browser is signed in as; any other browser is sent to sign in, and back to
 * `returnTo` afterwards (the profile unless a page says otherwise).
 */
export async function whenSignedIn(
  accountOf: SignedInAccount,
  request: FastifyRequest,
  reply: FastifyReply,
  then: (userId: string) => Promise<unknown>,
  returnTo: string = PAGE_PATHS.profile,
): Promise<unknown> {
  const userId = await accountOf(request);
  if (userId) return then(userId);
  return reply.redirect(`${PAGE_PATHS.signIn}?return_to=${encodeURIComponent(returnTo)}`, 303);
}
