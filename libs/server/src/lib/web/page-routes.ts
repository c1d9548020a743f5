import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import {
  CSRF_FIELD,
  formText,
  servePages,
  STYLESHEET,
  STYLESHEET_PATH,
  WebSessions,
} from '@assistant/server-kit';
import { SignInPages } from './sign-in.pages';
import { ProfilePages } from './profile/profile.pages';
import { PasswordPages } from './password.pages';
import { ConnectionPages } from './profile/connection.pages';
import { OAuthConnectPages } from './profile/oauth-connect.pages';

/** Serves the sign-in, profile, connection and password pages (servePages: CSRF on every POST, error pages). */
@Injectable()
export class PageRoutes implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly sessions: WebSessions,
    private readonly signIn: SignInPages,
    private readonly profile: ProfilePages,
    private readonly connections: ConnectionPages,
    private readonly passwords: PasswordPages,
    private readonly oauthConnect: OAuthConnectPages,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.get(STYLESHEET_PATH, async (_request, reply) =>
      reply.header('cache-control', 'public, max-age=3600').type('text/css; charset=utf-8').send(STYLESHEET),
    );
    const routes = [
      ...this.signIn.routes(),
      ...this.profile.routes(),
      ...this.connections.routes(),
      ...this.passwords.routes(),
      ...this.oauthConnect.routes(),
    ];
    servePages(fastify, routes, (request) => this.sessions.checkCsrf(request, formText(request, CSRF_FIELD)));
  }
}
