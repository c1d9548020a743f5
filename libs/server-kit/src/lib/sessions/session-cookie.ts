import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The session cookie. Over https it is `__Host-assistant_session`: browsers accept that name only with Secure,
 * Path=/ and no Domain, so neither a subdomain nor a plain-http page of the same host can plant or overwrite it.
 * Over http (a self-hosted server on this machine) the prefix is not allowed, hence the plain name.
 *
 * HttpOnly keeps it from scripts; SameSite=Lax keeps it off cross-site POSTs (CSRF tokens guard those anyway)
 * while a link from elsewhere, such as an application sending its user to the consent page, still arrives
 * signed in.
 *
 * One cookie with fixed attributes is all the pages set, so it is read and written here rather than through a
 * cookie plugin; the value is base64url, which needs no encoding.
 */
export const SESSION_COOKIE = { secure: '__Host-assistant_session', plain: 'assistant_session' } as const;

export function sessionCookieName(secure: boolean): string {
  return secure ? SESSION_COOKIE.secure : SESSION_COOKIE.plain;
}

/** The value of the cookie `name` in the request's Cookie header, if there is one. */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

/** The Set-Cookie value for the session cookie; `maxAgeSeconds` 0 deletes it. */
export function sessionCookie(secure: boolean, value: string, maxAgeSeconds: number): string {
  return pageCookie(sessionCookieName(secure), secure, value, maxAgeSeconds);
}

/** A Set-Cookie value with the attributes of every cookie the pages set (see SESSION_COOKIE for why these). */
export function pageCookie(name: string, secure: boolean, value: string, maxAgeSeconds: number): string {
  return [
    `${name}=${value}`,
    'Path=/',
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

/** Adds a Set-Cookie header, keeping any the reply has already (Fastify's `header` would replace them). */
export function appendSetCookie(reply: FastifyReply, cookie: string): void {
  const existing = reply.getHeader('set-cookie');
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  reply.header('set-cookie', [...list.filter((c) => !c.startsWith(cookie.split('=')[0] + '=')), cookie]);
}
