import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { appendSetCookie, readCookie } from '@assistant/server-kit';

/**
 * The cookie a paired browser (a phone that claimed a pairing code in the web app) keeps its device token in.
 * HttpOnly: page scripts never see the token, so a script that got into the page cannot carry it away; it can
 * only act through the page while the page is open. SameSite=Strict: no other site's link or form sends it.
 * Over https the `__Host-` prefix pins it to this host, Secure, Path=/ (as the session cookie).
 */
export const DEVICE_COOKIE = { secure: '__Host-assistant_device', plain: 'assistant_device' } as const;

/** Browsers keep a cookie at most 400 days; a device token without an expiry is re-sent for that long. */
const MAX_COOKIE_SECONDS = 400 * 24 * 60 * 60;

/** A device token as the pairing issues it (`asd_…`); anything else in the cookie is ignored. */
const DEVICE_TOKEN = /^asd_[A-Za-z0-9_-]{20,200}$/;

export function deviceCookieName(secure: boolean): string {
  return secure ? DEVICE_COOKIE.secure : DEVICE_COOKIE.plain;
}

/** The device token this browser holds, if its cookie has one of the right shape. */
export function readDeviceToken(request: FastifyRequest, secure: boolean): string | undefined {
  const value = readCookie(request, deviceCookieName(secure));
  return value && DEVICE_TOKEN.test(value) ? value : undefined;
}

/** Sets (or, with `token` null, deletes) the device cookie on this reply. */
export function setDeviceCookie(
  reply: FastifyReply,
  secure: boolean,
  token: string | null,
  expiresAt: Date | null = null,
): void {
  const seconds = token
    ? Math.min(
        MAX_COOKIE_SECONDS,
        expiresAt ? Math.floor((expiresAt.getTime() - Date.now()) / 1000) : MAX_COOKIE_SECONDS,
      )
    : 0;
  appendSetCookie(
    reply,
    [
      `${deviceCookieName(secure)}=${token ?? ''}`,
      'Path=/',
      `Max-Age=${Math.max(0, seconds)}`,
      'HttpOnly',
      'SameSite=Strict',
      ...(secure ? ['Secure'] : []),
    ].join('; '),
  );
}

/**
 * The CSRF token of a paired browser: a digest of its device token, put in the app's page for its script to send
 * in a header. It proves the request came from this site's page (another site can neither read the page nor set
 * the header without a CORS preflight this server never grants) and cannot be turned back into the token.
 */
export function deviceCsrfToken(deviceToken: string): string {
  return createHash('sha256').update(`assistant web app csrf\0${deviceToken}`, 'utf8').digest('base64url');
}
