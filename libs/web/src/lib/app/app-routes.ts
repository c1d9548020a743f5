import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { servePages } from '@assistant/server-kit';
import { serveAppAssets } from './app-assets';
import { AppPages } from './app.pages';

/**
 * Serves the web app's pages and assets (servePages: CSRF on every POST — the session's, or a paired device's —
 * and error pages).
 */
@Injectable()
export class AppRoutes implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly pages: AppPages,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    serveAppAssets(fastify);
    servePages(fastify, this.pages.routes(), (request) => this.pages.checkCsrf(request));
  }
}
