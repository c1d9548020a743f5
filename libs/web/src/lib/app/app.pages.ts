import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '@assistant/contracts';
import { TokenService, type Principal } from '@assistant/auth';
import {
  formText,
  CSRF_FIELD,
  html,
  type Html,
  csrfField,
  PAGE_PATHS,
  type PageRoute,
  WebSessions,
  DEVICE_PAIRING,
  type DevicePairing,
} from '@assistant/server-kit';
import { deviceCsrfToken, readDeviceToken, setDeviceCookie } from './device-cookie';
import { renderAppPage } from './app-document';
import { chatBody, pairBody } from './app-markup';

/** Who a browser of the web app is: a signed-in session, or a paired device (its token from the HttpOnly cookie). */
type AppCaller =
  | { kind: 'session'; userId: string; csrf: string }
  | { kind: 'device'; principal: Principal; token: string; csrf: string };

/** What a device is called when the person pairing it leaves the name empty. */
const DEFAULT_DEVICE_NAME = 'Phone';

/**
 * The web app's pages: `/app` (the chat and memories, which its script fills through /api/v1), `/app/pair` (a
 * phone claims a pairing code: from the QR code of `assistant pair`, whose URL carries the code after `#`, or
 * typed in) and `/app/signout`. A phone that paired keeps its device token in an HttpOnly cookie; revoking the
 * device on /profile makes its next request find no device, and it is sent back to pairing.
 */
@Injectable()
export class AppPages {
  constructor(
    private readonly sessions: WebSessions,
    private readonly tokens: TokenService,
    @Inject(DEVICE_PAIRING) private readonly pairing: DevicePairing,
  ) {}

  routes(): PageRoute[] {
    return [
      { method: 'GET', path: PAGE_PATHS.app, handle: (q, r) => this.app(q, r) },
      { method: 'GET', path: PAGE_PATHS.appPair, handle: (q, r) => this.pairForm(q, r) },
      { method: 'POST', path: PAGE_PATHS.appPair, handle: (q, r) => this.claim(q, r) },
      { method: 'POST', path: PAGE_PATHS.appSignOut, handle: (q, r) => this.signOut(q, r) },
    ];
  }

  /**
   * Whether a POST of the app's pages carries the CSRF token of its caller: the session's, or, for a paired
   * browser without a session, its device's.
   */
  async checkCsrf(request: FastifyRequest): Promise<boolean> {
    const given = formText(request, CSRF_FIELD);
    if (await this.sessions.checkCsrf(request, given)) return true;
    const token = readDeviceToken(request, this.sessions.isHttps(request));
    return Boolean(token && given.length > 0 && given === deviceCsrfToken(token));
  }

  private async callerOf(
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<AppCaller | 'revoked' | null> {
    const userId = await this.sessions.userIdFor(request);
    if (userId) return { kind: 'session', userId, csrf: await this.sessions.csrfFor(request) };
    const secure = this.sessions.isHttps(request);
    const token = readDeviceToken(request, secure);
    if (!token) return null;
    const principal = await this.tokens.verify(token);
    if (!principal || principal.kind !== 'device') {
      setDeviceCookie(reply, secure, null);
      return 'revoked';
    }
    return { kind: 'device', principal, token, csrf: deviceCsrfToken(token) };
  }

  private async app(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const caller = await this.callerOf(request, reply);
    if (caller === 'revoked') return reply.redirect(`${PAGE_PATHS.appPair}?signed_out=1`, 303);
    if (!caller)
      return reply.redirect(`${PAGE_PATHS.signIn}?return_to=${encodeURIComponent(PAGE_PATHS.app)}`, 303);
    return renderAppPage(reply, {
      title: 'Chat',
      view: 'chat',
      csrf: caller.csrf,
      body: chatBody({ csrf: caller.csrf, isDevice: caller.kind === 'device' }),
    });
  }

  private async pairForm(request: FastifyRequest, reply: FastifyReply, problem?: Html, status = 200) {
    const caller = await this.callerOf(request, reply);
    if (caller && caller !== 'revoked') return reply.redirect(PAGE_PATHS.app, 303);
    const signedOut = (request.query as Record<string, unknown> | undefined)?.['signed_out'] !== undefined;
    const csrf = await this.sessions.csrfFor(request);
    return renderAppPage(reply, {
      title: 'Pair this device',
      view: 'pair',
      csrf,
      status,
      body: pairBody({
        csrf: csrfField(csrf),
        code: formText(request, 'code'),
        name: formText(request, 'device_name') || DEFAULT_DEVICE_NAME,
        notice:
          problem ??
          (caller === 'revoked' || signedOut ? html`This device was signed out. Pair it again.` : undefined),
      }),
    });
  }

  private async claim(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const code = formText(request, 'code').trim();
    const name = formText(request, 'device_name').trim() || DEFAULT_DEVICE_NAME;
    try {
      const issued = await this.pairing.claim(code, name.slice(0, 100));
      setDeviceCookie(reply, this.sessions.isHttps(request), issued.secret, issued.record.expiresAt);
      return reply.redirect(PAGE_PATHS.app, 303);
    } catch (error) {
      if (!(error instanceof ProblemError) || error.status >= 500) throw error;
      return this.pairForm(
        request,
        reply,
        html`That code cannot be used: it is wrong, already used or expired. Make a new one with
          <code>assistant pair</code>.`,
        422,
      );
    }
  }

  /** Signs this browser out of the app: a paired device is unpaired (its token revoked), a session ended. */
  private async signOut(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const caller = await this.callerOf(request, reply);
    if (caller && caller !== 'revoked' && caller.kind === 'device') {
      await this.tokens.revoke(caller.principal.userId, caller.principal.tokenId, 'device');
      setDeviceCookie(reply, this.sessions.isHttps(request), null);
      return reply.redirect(`${PAGE_PATHS.appPair}?signed_out=1`, 303);
    }
    await this.sessions.signOut(request);
    return reply.redirect(PAGE_PATHS.signIn, 303);
  }
}
