import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SCOPE_DESCRIPTIONS, isScope, type Scope } from '@assistant/contracts';
import type { UsersRepository, OAuthRecordsRepository } from '@assistant/storage';
import {
  InjectRepository,
  WebSessions,
  html,
  renderPage,
  csrfField,
  SitePages,
  type PageProvider,
  type PageRoute,
  PublicAddress,
  PROVIDER_INTERACTION_COOKIE,
  readCookie,
} from '@assistant/server-kit';
import { AuthorizationServerHost } from './authorization-server.host';
import { DELEGABLE_SCOPES, INTERACTION_PATH } from './authorization-server';
import { OAUTH_ROUTES } from './provider-routes';
import { viewedAtPublicAddress, providerResponse } from './provider-request';

interface ConsentDetails {
  missingResourceScopes?: Record<string, string[]>;
  missingOIDCScope?: string[];
}

/**
 * Where a user resolves an authorization request: the authorization server sends the browser here to sign in
 * (our sign-in page, then back) and to allow or deny the application the scopes it asked for. Only delegable
 * scopes can be granted; these are pages of the site (`@SitePages`), so every POST carries the session's CSRF
 * token and an error is a page, by construction. The consent is the signed-in person's own:
 * signed out, the browser signs in first; signed in as someone other than the one the request was started for
 * (someone signed out and another in meanwhile), the request starts again, and the provider, whose session the
 * host ends unless it is the signed-in person's, asks again for whoever is signed in now (B4).
 */
@Injectable()
@SitePages()
export class Interactions implements PageProvider {
  constructor(
    private readonly server: AuthorizationServerHost,
    private readonly sessions: WebSessions,
    @InjectRepository('users') private readonly users: UsersRepository,
    @InjectRepository('oauth') private readonly oauthRecords: OAuthRecordsRepository,
    private readonly address: PublicAddress,
  ) {}

  routes(): PageRoute[] {
    return [
      { method: 'GET', path: `${INTERACTION_PATH}/:uid`, handle: (q, r) => this.show(q, r) },
      { method: 'POST', path: `${INTERACTION_PATH}/:uid/allow`, handle: (q, r) => this.decide(q, r, true) },
      { method: 'POST', path: `${INTERACTION_PATH}/:uid/deny`, handle: (q, r) => this.decide(q, r, false) },
    ];
  }

  private async show(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const provider = await this.server.get();
    const details = await this.detailsOf(request, reply);
    if (!details) return this.startAgainOrExpired(request, reply);
    const userId = await this.sessions.userIdFor(request);
    if (!userId) return this.signIn(reply, details.uid);
    if (details.prompt.name === 'login') {
      const res = providerResponse(reply);
      reply.hijack();
      return provider.interactionFinished(this.asReceived(request), res, { login: { accountId: userId } });
    }
    if (userId !== details.session?.accountId) return this.startAgain(reply, details.params);
    const client = await provider.Client.find(String(details.params.client_id));
    const user = await this.users.findById(userId);
    const scopes = requestedScopes(details.prompt.details as ConsentDetails);
    const name = client?.clientName ?? String(details.params.client_id);
    const returnTo = URL.canParse(String(details.params.redirect_uri))
      ? new URL(String(details.params.redirect_uri)).host
      : undefined;
    const csrf = csrfField(await this.sessions.csrfFor(request));
    const action = (decision: string) => `${INTERACTION_PATH}/${details.uid}/${decision}`;
    return renderPage(reply, {
      title: `Allow ${name}?`,
      body: html` <h1>Allow <strong>${name}</strong> to use your assistant?</h1>
        <p>Signed in as ${user?.email ?? userId}.${returnTo ? ` You will return to ${returnTo}.` : ''}</p>
        <p>${name} asks to:</p>
        <ul>
          ${scopes.map((s) => html`<li><code>${s}</code>: ${SCOPE_DESCRIPTIONS[s]}</li>`)}
        </ul>
        <p>
          It can never manage your tokens, applications or devices. You can revoke it at any time on your
          <a href="/profile">profile</a>.
        </p>
        <form method="post" action="${action('allow')}">${csrf}<button type="submit">Allow</button></form>
        <form method="post" action="${action('deny')}">
          ${csrf}<button type="submit" class="secondary">Deny</button>
        </form>`,
    });
  }

  private async decide(request: FastifyRequest, reply: FastifyReply, allow: boolean): Promise<unknown> {
    const provider = await this.server.get();
    const details = await this.detailsOf(request, reply);
    if (!details) return this.startAgainOrExpired(request, reply);
    if (details.prompt.name !== 'consent') return this.expired(reply);
    const userId = await this.sessions.userIdFor(request);
    if (!userId) return this.signIn(reply, details.uid);
    if (userId !== details.session?.accountId) return this.startAgain(reply, details.params);
    const res = providerResponse(reply);
    reply.hijack();
    if (!allow) {
      return provider.interactionFinished(this.asReceived(request), res, {
        error: 'access_denied',
        error_description: 'the user did not allow the application',
      });
    }
    const { missingResourceScopes = {}, missingOIDCScope = [] } = details.prompt.details as ConsentDetails;
    const grant = details.grantId ? ((await provider.Grant.find(details.grantId)) ?? newGrant()) : newGrant();
    function newGrant() {
      return new provider.Grant({ accountId: userId as string, clientId: String(details?.params.client_id) });
    }
    for (const [resource, scopes] of Object.entries(missingResourceScopes)) {
      grant.addResourceScope(resource, scopes.filter(isDelegable).join(' '));
    }
    if (missingOIDCScope.length > 0) grant.addOIDCScope(missingOIDCScope.join(' '));
    const grantId = await grant.save();
    return provider.interactionFinished(
      this.asReceived(request),
      res,
      { consent: { grantId } },
      { mergeWithLastSubmission: true },
    );
  }

  private expired(reply: FastifyReply) {
    return renderPage(reply, {
      status: 400,
      title: 'Sign-in expired',
      body: '<h1>This sign-in has expired</h1><p>Go back to the application and start again.</p>',
    });
  }

  /** The request as the provider sees those it answers: received at the public address (its cookies' Secure). */
  private asReceived(request: FastifyRequest) {
    return viewedAtPublicAddress(request, this.address);
  }

  /** The pending interaction of this browser. */
  private async detailsOf(request: FastifyRequest, reply: FastifyReply) {
    const provider = await this.server.get();
    return provider.interactionDetails(this.asReceived(request), reply.raw).catch(() => null);
  }

  /** To the sign-in page, and back to this interaction once signed in. */
  private signIn(reply: FastifyReply, uid: string) {
    const back = encodeURIComponent(`${INTERACTION_PATH}/${uid}`);
    return reply.redirect(`/signin?return_to=${back}`, 303);
  }

  /**
   * An interaction the provider no longer takes: expired, or started in a provider session that has ended since
   * (someone signed out or in). The latter is this browser's (its interaction cookie names it) and still on
   * record: its request starts again, for whoever is signed in now.
   */
  private async startAgainOrExpired(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const uid = String((request.params as { uid?: string }).uid ?? '');
    if (uid && readCookie(request, PROVIDER_INTERACTION_COOKIE) === uid) {
      const params = (await this.oauthRecords.find('Interaction', uid))?.payload.params;
      if (typeof params === 'object' && params !== null) {
        return this.startAgain(reply, params as Record<string, unknown>);
      }
    }
    return this.expired(reply);
  }

  /** The same authorization request from its start, decided for whoever is signed in now. */
  private startAgain(reply: FastifyReply, params: Record<string, unknown>) {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) {
      if (typeof value === 'string') query.set(name, value);
    }
    return reply.redirect(`${OAUTH_ROUTES.authorization}?${query}`, 303);
  }
}

function isDelegable(scope: string): scope is Scope {
  return isScope(scope) && DELEGABLE_SCOPES.includes(scope);
}

/** The API scopes the application asked for and does not hold yet, in the catalogue's order. */
function requestedScopes(details: ConsentDetails): Scope[] {
  const asked = new Set(Object.values(details.missingResourceScopes ?? {}).flat());
  return DELEGABLE_SCOPES.filter((scope) => asked.has(scope));
}
