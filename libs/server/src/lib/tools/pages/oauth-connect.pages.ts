import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  SERVER_CONFIG,
  type ServerConfig,
  html,
  messagePage,
  notFoundPage,
  PAGE_PATHS,
  paramOf,
  type PageRoute,
  WebSessions,
  appendSetCookie,
  pageCookie,
  readCookie,
  SitePages,
  type PageProvider,
} from '@assistant/server-kit';
import { ToolCatalog } from '../tool-catalog';
import {
  OAuthConnectRefused,
  OAuthConnections,
  PENDING_LIFETIME_MS,
  sessionBinding,
} from '../oauth-connections.service';

/** The cookie that keeps a started connection (sealed, bound to the web session) until the provider sends back. */
const PENDING_COOKIE = {
  secure: '__Host-assistant_oauth_connect',
  plain: 'assistant_oauth_connect',
} as const;

/**
 * "Connect Google" / "Connect Microsoft" on /profile: a POST (with the session's CSRF token, checked by
 * PageRoutes) sends the signed-in browser to the provider with PKCE and a `state`; the provider sends it back to
 * the callback, which only that same web session of that same account can complete. Page routes read no bearer
 * token: a third-party app's token neither starts nor completes one.
 */
@Injectable()
@SitePages()
export class OAuthConnectPages implements PageProvider {
  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    private readonly sessions: WebSessions,
    private readonly oauth: OAuthConnections,
    private readonly catalog: ToolCatalog,
  ) {}

  routes(): PageRoute[] {
    return [
      { method: 'POST', path: PAGE_PATHS.connectAccount, handle: (q, r) => this.start(q, r) },
      { method: 'GET', path: PAGE_PATHS.oauthCallback, handle: (q, r) => this.callback(q, r) },
    ];
  }

  private async start(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const userId = await this.sessions.userIdFor(request);
    if (!userId)
      return reply.redirect(`${PAGE_PATHS.signIn}?return_to=${encodeURIComponent(PAGE_PATHS.profile)}`, 303);
    const binding = sessionBinding(await this.sessions.csrfFor(request));
    const started = this.oauth.begin(userId, paramOf(request, 'client'), binding);
    if (!started) return notFoundPage(reply, 'account provider');
    appendSetCookie(
      reply,
      this.pendingCookie(request, encodeURIComponent(started.pending), PENDING_LIFETIME_MS / 1000),
    );
    return reply.redirect(started.url, 303);
  }

  private async callback(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const sealed = readCookie(request, this.cookieName(request));
    // Used once, whatever comes of it.
    appendSetCookie(reply, this.pendingCookie(request, '', 0));
    const userId = await this.sessions.userIdFor(request);
    if (!userId) {
      return messagePage(
        reply,
        403,
        'Not connected',
        html`This browser is not signed in. <a href="${PAGE_PATHS.signIn}">Sign in</a>, then connect the
          account again from your profile.`,
      );
    }
    const query = request.query as Record<string, unknown>;
    const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string) : undefined);
    try {
      await this.oauth.finish(
        userId,
        sessionBinding(await this.sessions.csrfFor(request)),
        sealed === undefined ? undefined : safeDecode(sealed),
        { state: text('state'), code: text('code'), error: text('error') },
      );
    } catch (error) {
      if (!(error instanceof OAuthConnectRefused)) throw error;
      return messagePage(
        reply,
        400,
        'Not connected',
        html`${error.message} <a href="${PAGE_PATHS.profile}#connections">Back to your profile</a>.`,
      );
    }
    this.catalog.notifyChanged(userId);
    return reply.redirect(`${PAGE_PATHS.profile}#connections`, 303);
  }

  private isHttps(request: FastifyRequest): boolean {
    return request.protocol === 'https' || Boolean(this.config.publicUrl?.startsWith('https:'));
  }

  private cookieName(request: FastifyRequest): string {
    return this.isHttps(request) ? PENDING_COOKIE.secure : PENDING_COOKIE.plain;
  }

  private pendingCookie(request: FastifyRequest, value: string, maxAgeSeconds: number): string {
    return pageCookie(this.cookieName(request), this.isHttps(request), value, maxAgeSeconds);
  }
}

function safeDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}
