import { createHash, timingSafeEqual } from 'node:crypto';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ALL_SCOPES, API_PREFIX, type Scope } from '@assistant/contracts';
import { admitPrincipal, type Principal } from '@assistant/auth';
import { WebSessions, readCookie, sessionCookieName } from '@assistant/server-kit';
import { deviceCsrfToken, readDeviceToken } from './device-cookie';

/** The header the web app's script sends its CSRF token in, on every call to /api/v1. */
export const CSRF_HEADER = 'x-csrf-token';

/** What a signed-in browser may do on /api/v1: everything but managing the account (that stays on /profile). */
export const BROWSER_SESSION_SCOPES: readonly Scope[] = ALL_SCOPES.filter(
  (scope) => scope !== 'write:account',
);

/**
 * Lets the web app (/app) call /api/v1 with the browser's own credential, which page scripts never see:
 *
 * - a signed-in session (the HttpOnly cookie of /profile): the request acts as a principal of that session, with
 *   every scope but `write:account`, and an id of its own (`web_…`, from the session's digest) so that a query it
 *   started is its own, as a token's is (R1);
 * - a paired browser's device cookie (HttpOnly, holding an `asd_` device token): the request is sent on as if it
 *   carried `Authorization: Bearer <token>`, so the guard verifies it as any device token (revoked: 401 at once).
 *
 * Only when the request carries the CSRF token of that credential in the `X-CSRF-Token` header, which only this
 * site's own page can send (another site's form cannot set a header; its fetch would need a CORS preflight, which
 * this server never answers), and a browser that says where the request came from must say this site. A request
 * with an Authorization header is left alone: bearer tokens behave as they always have. Anything else is left
 * alone too, and the guard refuses it (401) as a request without a token.
 */
@Injectable()
export class BrowserCredentials implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly sessions: WebSessions,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    // After the rate limiter's hook (registered before Nest): it counts a cookie's request by address. A callback
    // hook, not an async one: a request with a token (or without the CSRF header) passes without a promise.
    fastify.addHook('onRequest', (request, _reply, done) => {
      const csrf = request.headers[CSRF_HEADER];
      if (
        request.headers.authorization !== undefined ||
        typeof csrf !== 'string' ||
        csrf.length === 0 ||
        !request.url.startsWith(`${API_PREFIX}/`) ||
        !sameSite(request)
      )
        return done();
      this.admit(request, csrf).then(() => done(), done);
    });
  }

  private async admit(request: FastifyRequest, csrf: string): Promise<void> {
    const secure = this.sessions.isHttps(request);
    const userId = await this.sessions.userIdFor(request);
    if (userId) {
      if (!(await this.sessions.checkCsrf(request, csrf))) return;
      admitPrincipal(request, this.sessionPrincipal(request, userId, secure));
      return;
    }
    const deviceToken = readDeviceToken(request, secure);
    if (deviceToken && equal(csrf, deviceCsrfToken(deviceToken))) {
      request.headers.authorization = `Bearer ${deviceToken}`;
    }
  }

  private sessionPrincipal(request: FastifyRequest, userId: string, secure: boolean): Principal {
    const cookie = readCookie(request, sessionCookieName(secure)) ?? '';
    // Never the session's own digest (what the database looks sessions up by): a digest of it.
    const id = createHash('sha256').update(`web app principal\0${cookie}`, 'utf8').digest('hex').slice(0, 24);
    return {
      userId,
      tokenId: `web_${id}`,
      kind: 'personal',
      scopes: [...BROWSER_SESSION_SCOPES],
      expiresAt: null,
    };
  }
}

/**
 * Whether the browser says the request came from this site: `Sec-Fetch-Site` (every current browser sends it)
 * must be same-origin when present; an `Origin` header must name this host. A client that sends neither is not
 * a browser page of another site (those always send Sec-Fetch-Site), and still needs the CSRF token.
 */
function sameSite(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false;
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === request.host;
  } catch {
    return false;
  }
}

function equal(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
