import type { FastifyReply, FastifyRequest } from 'fastify';
import { lineSchema } from '@assistant/contracts';

/** The paths of the sign-in and account pages (the OAuth consent pages live under /oauth/interaction/). */
export const PAGE_PATHS = {
  signIn: '/signin',
  signUp: '/signup',
  signOut: '/signout',
  signInLink: '/signin/link',
  profile: '/profile',
  createToken: '/profile/tokens',
  revokeToken: '/profile/tokens/:id/revoke',
  revokeDevice: '/profile/devices/:id/revoke',
  revokeIntegration: '/profile/integrations/:id/revoke',
  removeConnection: '/profile/connections/:id/remove',
  newConnection: '/profile/connections/new',
  createConnection: '/profile/connections',
  editConnection: '/profile/connections/:id',
  defaultConnection: '/profile/connections/:id/default',
  connectAccount: '/profile/connections/oauth/:client',
  oauthCallback: '/profile/connections/oauth/callback',
  app: '/app',
  appPair: '/app/pair',
  appSignOut: '/app/signout',
  forgotPassword: '/password/forgot',
  resetPassword: '/password/reset',
  changePassword: '/profile/password',
  memberSignInLink: '/profile/sign-in-links',
} as const;

/**
 * Requests that try a credential (a password, a sign-in or password link's token) or send a mail: counted per address in the small `auth`
 * rate-limit bucket, on top of the per-email lockout.
 */
export const CREDENTIAL_PAGE_ROUTES = [
  `POST ${PAGE_PATHS.signIn}`,
  `POST ${PAGE_PATHS.signUp}`,
  `GET ${PAGE_PATHS.signInLink}`,
  `POST ${PAGE_PATHS.forgotPassword}`,
  `POST ${PAGE_PATHS.resetPassword}`,
  `POST ${PAGE_PATHS.changePassword}`,
] as const;

/** One page route: what a pages class serves. Every POST's CSRF token is checked before `handle` runs. */
export interface PageRoute {
  method: 'GET' | 'POST';
  path: string;
  handle(request: FastifyRequest, reply: FastifyReply): Promise<unknown>;
}

/**
 * The path params of a page route such as `/profile/tokens/:id/revoke`. An id with a control character or half a
 * character (`tok_%00`) names nothing, as an absent one does: '' (looking it up would fail PostgreSQL's statement).
 */
export function paramOf(request: FastifyRequest, name: string): string {
  const value = String((request.params as Record<string, string | undefined>)[name] ?? '');
  return lineSchema(name).safeParse(value).success ? value : '';
}
