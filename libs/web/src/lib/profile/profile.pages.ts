import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TokenService } from '@assistant/auth';
import type { UsersRepository } from '@assistant/storage';
import {
  SERVER_CONFIG,
  InjectRepository,
  type ServerConfig,
  formList,
  formText,
  html,
  type Html,
  renderPage,
  notFoundPage,
  PAGE_PATHS,
  paramOf,
  type PageRoute,
  signedInPage,
  type SignedInAccount,
  WebSessions,
  contributionsOf,
  ProfileSection,
  SitePages,
  type PageProvider,
  type ProfileSectionContext,
  type ProfileSectionPlace,
  type ProfileSectionProvider,
} from '@assistant/server-kit';
import { signingInSection } from './signing-in-section';
import { accountSection, createdTokenBody, devicesSection, tokensSection } from './profile-sections';
import { readTokenForm, type TokenFormInput } from './token-form';

/** Lists on the page show this many of the newest items. */
const LIST_LIMIT = 100;

const EMPTY_TOKEN_FORM = { name: '', scopes: [], expiry: '', problems: [] };

/** A section of /profile with its place: the page's own, and those other features contribute. */
interface PlacedSection {
  order: number;
  render(context: ProfileSectionContext): Promise<Html | null> | Html | null;
}

/**
 * `/profile`: the signed-in account, its personal tokens (create, shown once; revoke) and paired devices (revoke),
 * and the sections other features contribute with `@ProfileSection` (connections, applications), in their
 * order. Every change is a POST with the session's CSRF token (checked by servePages) and acts on the signed-in
 * account's own items only: another account's id is "not found", as in the API.
 */
@Injectable()
@SitePages()
export class ProfilePages implements PageProvider, OnModuleInit {
  private contributed: PlacedSection[] = [];

  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    @InjectRepository('users') private readonly users: UsersRepository,
    private readonly sessions: WebSessions,
    private readonly tokens: TokenService,
    private readonly discovery: DiscoveryService,
  ) {}

  private readonly account: SignedInAccount = (request) => this.sessions.userIdFor(request);

  onModuleInit(): void {
    this.contributed = contributionsOf<ProfileSectionProvider, ProfileSectionPlace>(
      this.discovery,
      ProfileSection,
    ).map(({ instance, options }) => ({ order: options.order, render: (c) => instance.render(c) }));
  }

  routes(): PageRoute[] {
    return [
      signedInPage(this.account, 'GET', PAGE_PATHS.profile, (q, r, u) => this.show(q, r, u)),
      signedInPage(this.account, 'POST', PAGE_PATHS.createToken, (q, r, u) => this.createToken(q, r, u)),
      signedInPage(this.account, 'POST', PAGE_PATHS.revokeToken, (q, r, u) =>
        this.revoke(q, r, u, 'personal'),
      ),
      signedInPage(this.account, 'POST', PAGE_PATHS.revokeDevice, (q, r, u) =>
        this.revoke(q, r, u, 'device'),
      ),
    ];
  }

  private async show(
    request: FastifyRequest,
    reply: FastifyReply,
    userId: string,
    tokenForm: TokenFormInput & { problems: string[] } = EMPTY_TOKEN_FORM,
    status = 200,
  ): Promise<unknown> {
    const user = await this.users.findById(userId);
    if (!user) {
      // The account went while the session lived on.
      await this.sessions.signOut(request);
      return reply.redirect(PAGE_PATHS.signIn, 303);
    }
    const csrf = await this.sessions.csrfFor(request);
    const page = { limit: LIST_LIMIT };
    const [personal, devices, owner] = await Promise.all([
      this.tokens.list(userId, 'personal', page),
      this.tokens.list(userId, 'device', page),
      this.users.findFirst(),
    ]);
    const own: PlacedSection[] = [
      { order: 10, render: () => accountSection(user, this.config.deployment, csrf) },
      { order: 20, render: () => signingInSection(this.config.deployment, owner?.id === userId, csrf) },
      { order: 30, render: () => tokensSection(personal.items, csrf, tokenForm) },
      { order: 50, render: () => devicesSection(devices.items, csrf) },
    ];
    const sections = [...own, ...this.contributed].sort((a, b) => a.order - b.order);
    const drawn = await Promise.all(sections.map((section) => section.render({ userId, csrf })));
    return renderPage(reply, {
      status,
      title: 'Your profile',
      body: html`<h1>Your profile</h1>
        ${drawn}`,
    });
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
}
