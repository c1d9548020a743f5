import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TokenService } from '@assistant/auth';
import type { Storage } from '@assistant/storage';
import {
  SERVER_CONFIG,
  STORAGE,
  type ServerConfig,
  formList,
  formText,
  html,
  renderPage,
  notFoundPage,
  PAGE_PATHS,
  paramOf,
  type PageRoute,
  whenSignedIn,
  WebSessions,
} from '@assistant/server-kit';
import { ConnectionsService } from '../../tools/connections.service';
import { OAuthConnections } from '../../tools/oauth-connections.service';
import { IntegrationsSection } from './integrations-section';
import { signingInSection } from './signing-in-section';
import { connectionsSection } from './connections-section';
import { accountSection, createdTokenBody, devicesSection, tokensSection } from './profile-sections';
import { readTokenForm, type TokenFormInput } from './token-form';

/** Lists on the page show this many of the newest items. */
const LIST_LIMIT = 100;

const EMPTY_TOKEN_FORM = { name: '', scopes: [], expiry: '', problems: [] };

/**
 * `/profile`: the signed-in account, its personal tokens (create, shown once; revoke), paired devices (revoke),
 * connections (remove) and, from the OAuth work, its integrations. Every change is a POST with the session's
 * CSRF token (checked by PageRoutes) and acts on the signed-in account's own items only: another account's id is
 * "not found", as in the API.
 */
@Injectable()
export class ProfilePages {
  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    @Inject(STORAGE) private readonly storage: Storage,
    private readonly sessions: WebSessions,
    private readonly tokens: TokenService,
    private readonly connections: ConnectionsService,
    private readonly integrations: IntegrationsSection,
    private readonly oauth: OAuthConnections,
  ) {}

  routes(): PageRoute[] {
    return [
      {
        method: 'GET',
        path: PAGE_PATHS.profile,
        handle: (q, r) => this.signedIn(q, r, (u) => this.show(q, r, u)),
      },
      {
        method: 'POST',
        path: PAGE_PATHS.createToken,
        handle: (q, r) => this.signedIn(q, r, (u) => this.createToken(q, r, u)),
      },
      {
        method: 'POST',
        path: PAGE_PATHS.revokeToken,
        handle: (q, r) => this.signedIn(q, r, (u) => this.revoke(q, r, u, 'personal')),
      },
      {
        method: 'POST',
        path: PAGE_PATHS.revokeDevice,
        handle: (q, r) => this.signedIn(q, r, (u) => this.revoke(q, r, u, 'device')),
      },
      {
        method: 'POST',
        path: PAGE_PATHS.revokeIntegration,
        handle: (q, r) =>
          this.signedIn(q, r, async (u) => {
            await this.integrations.revoke(u, paramOf(q, 'id'));
            return r.redirect(`${PAGE_PATHS.profile}#integrations`, 303);
          }),
      },
      {
        method: 'POST',
        path: PAGE_PATHS.removeConnection,
        handle: (q, r) => this.signedIn(q, r, (u) => this.removeConnection(q, r, u)),
      },
    ];
  }

  /** Runs `then` for the signed-in account; a signed-out browser is sent to sign in and brought back to /profile. */
  private async signedIn(
    request: FastifyRequest,
    reply: FastifyReply,
    then: (userId: string) => Promise<unknown>,
  ): Promise<unknown> {
    return whenSignedIn((r) => this.sessions.userIdFor(r), request, reply, then);
  }

  private async show(
    request: FastifyRequest,
    reply: FastifyReply,
    userId: string,
    tokenForm: TokenFormInput & { problems: string[] } = EMPTY_TOKEN_FORM,
    status = 200,
  ): Promise<unknown> {
    const user = await this.storage.users.findById(userId);
    if (!user) {
      // The account went while the session lived on.
      await this.sessions.signOut(request);
      return reply.redirect(PAGE_PATHS.signIn, 303);
    }
    const csrf = await this.sessions.csrfFor(request);
    const page = { limit: LIST_LIMIT };
    const [personal, devices, connections, integrations, owner] = await Promise.all([
      this.tokens.list(userId, 'personal', page),
      this.tokens.list(userId, 'device', page),
      this.connections.list(userId),
      this.integrations.render({ userId, csrf }),
      this.storage.users.findFirst(),
    ]);
    return renderPage(reply, {
      status,
      title: 'Your profile',
      body: html`<h1>Your profile</h1>
        ${accountSection(user, this.config.deployment, csrf)}
        ${signingInSection(this.config.deployment, owner?.id === userId, csrf)}
        ${tokensSection(personal.items, csrf, tokenForm)} ${integrations}
        ${devicesSection(devices.items, csrf)}
        ${connectionsSection(connections.data, this.offered(), csrf, this.accounts())}`,
    });
  }

  /** The accounts connected by OAuth here ("Connect Google"): those the operator or owner configured. */
  private accounts() {
    return this.oauth.clients().map((c) => ({ name: c.name, title: c.definition.title }));
  }

  /** The providers a connection can be added with here, for the connections section's links. */
  private offered() {
    return this.connections
      .offered()
      .map(({ family, provider }) => ({ family, name: provider.name, description: provider.description }));
  }

  private async createToken(request: FastifyRequest, reply: FastifyReply, userId: string): Promise<unknown> {
    const input: TokenFormInput = {
      name: formText(request, 'name'),
      scopes: formList(request, 'scope'),
      expiry: formText(request, 'expiry'),
    };
    const form = readTokenForm(input);
    if (!form.ok) return this.show(request, reply, userId, { ...input, problems: form.problems }, 400);
    const issued = await this.tokens.issue({
      userId,
      kind: 'personal',
      name: form.name,
      scopes: form.scopes,
      expiresAt: form.expiresAt,
    });
    return renderPage(reply, {
      status: 201,
      title: 'Your new token',
      body: createdTokenBody({ name: form.name, secret: issued.secret, expiresAt: issued.record.expiresAt }),
    });
  }

  private async revoke(
    request: FastifyRequest,
    reply: FastifyReply,
    userId: string,
    kind: 'personal' | 'device',
  ): Promise<unknown> {
    if (!(await this.tokens.revoke(userId, paramOf(request, 'id'), kind))) {
      return notFoundPage(reply, kind === 'device' ? 'device' : 'token');
    }
    return reply.redirect(`${PAGE_PATHS.profile}#${kind === 'device' ? 'devices' : 'tokens'}`, 303);
  }

  private async removeConnection(
    request: FastifyRequest,
    reply: FastifyReply,
    userId: string,
  ): Promise<unknown> {
    // Not found and built-in connections are ApiErrors, which PageRoutes turns into pages.
    await this.connections.delete(userId, paramOf(request, 'id'));
    return reply.redirect(`${PAGE_PATHS.profile}#connections`, 303);
  }
}
