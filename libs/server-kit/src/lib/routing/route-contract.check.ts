import { Inject, Injectable, RequestMethod, type OnModuleInit, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService } from '@nestjs/core';
import type { Endpoint } from '@assistant/contracts';
import { ACCESS_METADATA, type RouteAccess } from '@assistant/auth';
import { nestPath, ROUTE_METADATA } from './route.decorator';

export const DECLARED_ENDPOINTS = Symbol('DECLARED_ENDPOINTS');

/** The server's routes disagree with the contract: a programming mistake that must stop start-up. */
export class RouteContractError extends Error {
  constructor(readonly mismatches: string[]) {
    super(
      `the served routes differ from the contract (@assistant/contracts ROUTES):\n- ${mismatches.join('\n- ')}`,
    );
    this.name = 'RouteContractError';
  }
}

interface ServedRoute {
  where: string;
  method: string;
  path: string;
  access: RouteAccess | undefined;
  declared: Endpoint | undefined;
}

const joinPath = (...parts: (string | undefined)[]) =>
  parts
    .flatMap((part) => (part ?? '').split('/'))
    .filter(Boolean)
    .join('/');

/** Every request handler of these controllers, as Nest will route it (before the global prefix). */
function servedRoutes(controllers: Type[]): ServedRoute[] {
  const routes: ServedRoute[] = [];
  for (const controller of controllers) {
    const base = Reflect.getMetadata(PATH_METADATA, controller) as string | undefined;
    const classAccess = Reflect.getMetadata(ACCESS_METADATA, controller) as RouteAccess | undefined;
    for (
      let proto = controller.prototype;
      proto && proto !== Object.prototype;
      proto = Object.getPrototypeOf(proto)
    ) {
      for (const name of Object.getOwnPropertyNames(proto)) {
        const handler = Object.getOwnPropertyDescriptor(proto, name)?.value as unknown;
        if (typeof handler !== 'function') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined) continue;
        routes.push({
          where: `${controller.name}.${name}`,
          method: RequestMethod[method],
          path: joinPath(base, Reflect.getMetadata(PATH_METADATA, handler) as string | undefined),
          access: (Reflect.getMetadata(ACCESS_METADATA, handler) as RouteAccess | undefined) ?? classAccess,
          declared: Reflect.getMetadata(ROUTE_METADATA, handler) as Endpoint | undefined,
        });
      }
    }
  }
  return routes;
}

const accessOf = (scope: Endpoint['scope']) => (scope ? `scope ${scope}` : 'public');
const describe = (access: RouteAccess | undefined) =>
  !access ? 'no scope' : 'public' in access ? 'public' : `scope ${access.scope}`;

/**
 * What differs between the routes these controllers serve and the declared endpoints: a route served but not
 * declared, declared but not served, served at another method or path, or guarded by another scope than
 * declared (or by none). Empty when they agree.
 */
export function routeMismatches(controllers: Type[], declared: readonly Endpoint[]): string[] {
  const mismatches: string[] = [];
  const served = new Set<string>();
  for (const route of servedRoutes(controllers)) {
    const at = `${route.method} /${route.path} (${route.where})`;
    if (!route.access) mismatches.push(`${at} has no scope and is not public`);
    const endpoint = route.declared;
    if (!endpoint || !declared.includes(endpoint)) {
      mismatches.push(`${at} is served but not declared`);
      continue;
    }
    served.add(endpoint.operationId);
    if (endpoint.method !== route.method || nestPath(endpoint.path) !== route.path) {
      mismatches.push(`${at} is declared as ${endpoint.operationId}: ${endpoint.method} ${endpoint.path}`);
    }
    if (route.access && describe(route.access) !== accessOf(endpoint.scope)) {
      mismatches.push(
        `${at} differs in scope: declared ${accessOf(endpoint.scope)}, served with ${describe(route.access)}`,
      );
    }
  }
  for (const endpoint of declared) {
    if (!served.has(endpoint.operationId)) {
      mismatches.push(
        `${endpoint.operationId} (${endpoint.method} ${endpoint.path}) is declared but not served`,
      );
    }
  }
  return mismatches;
}

/** Refuses to start a server whose routes differ from the declared contract (see routeMismatches). */
@Injectable()
export class RouteContractCheck implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    @Inject(DECLARED_ENDPOINTS) private readonly declared: readonly Endpoint[],
  ) {}

  onModuleInit(): void {
    const controllers = this.discovery
      .getControllers()
      .map((wrapper) => wrapper.metatype as Type | null)
      .filter((type): type is Type => typeof type === 'function');
    const mismatches = routeMismatches(controllers, this.declared);
    if (mismatches.length > 0) throw new RouteContractError(mismatches);
  }
}
