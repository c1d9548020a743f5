import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { servedPath, type ProtocolRoute } from '@assistant/contracts';
import { RouteContractError } from './route-contract.check';

export const DECLARED_PROTOCOLS = Symbol('DECLARED_PROTOCOLS');

/** Whether the router serves `method` at `url` (Fastify's `hasRoute`). */
export type ServesRoute = (route: { method: string; url: string }) => boolean;

/**
 * What the declared protocol routes (@assistant/contracts PROTOCOL_ROUTES) say is served and is not: each
 * method of each. Empty when the server serves them all.
 */
export function protocolRouteMismatches(
  serves: ServesRoute,
  declared: Readonly<Record<string, ProtocolRoute>>,
): string[] {
  return Object.entries(declared).flatMap(([name, route]) =>
    route.methods
      .filter((method) => !serves({ method, url: servedPath(route) }))
      .map((method) => `${name} (${method} ${servedPath(route)}) is declared but not served`),
  );
}

/**
 * Refuses to start a server that does not serve a declared protocol route. The protocols register their routes
 * with Fastify directly, once every module is initialised, so this runs at bootstrap, after them.
 */
@Injectable()
export class ProtocolRouteCheck implements OnApplicationBootstrap {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(DECLARED_PROTOCOLS) private readonly declared: Readonly<Record<string, ProtocolRoute>>,
  ) {}

  onApplicationBootstrap(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const mismatches = protocolRouteMismatches(
      (route) => fastify.hasRoute(route as Parameters<FastifyInstance['hasRoute']>[0]),
      this.declared,
    );
    if (mismatches.length > 0) throw new RouteContractError(mismatches);
  }
}
