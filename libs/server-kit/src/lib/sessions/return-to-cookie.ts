import type { FastifyReply, FastifyRequest } from 'fastify';
import { appendSetCookie, pageCookie, readCookie } from './session-cookie';

/**
 * Where a browser was going when a self-hosted server asked it to sign in (an OAuth consent, most often). The
 * owner signs in with a one-time link that a command prints, which cannot know that path; the browser keeps it
 * in this cookie meanwhile, and the link's use takes it back. `__Host-` over https, for the reasons of
 * SESSION_COOKIE.
 *
 * The value is whatever the browser sends back, so the reader must check it again as a `return_to` (a path on
 * this server) before following it.
 */
const RETURN_TO_COOKIE = { secure: '__Host-assistant_return_to', plain: 'assistant_return_to' } as const;

const nameOf = (secure: boolean) => (secure ? RETURN_TO_COOKIE.secure : RETURN_TO_COOKIE.plain);

/** Keeps `path` in the browser for `maxAgeSeconds` (as long as a sign-in link lives). */
export function rememberReturnTo(
  reply: FastifyReply,
  secure: boolean,
  path: string,
  maxAgeSeconds: number,
): void {
  appendSetCookie(reply, pageCookie(nameOf(secure), secure, encodeURIComponent(path), maxAgeSeconds));
}

/** The path the browser kept, unchecked, or null; the cookie is deleted with this reply either way. */
export function takeReturnTo(request: FastifyRequest, reply: FastifyReply, secure: boolean): string | null {
  const value = readCookie(request, nameOf(secure));
  if (value === undefined) return null;
  appendSetCookie(reply, pageCookie(nameOf(secure), secure, '', 0));
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}
