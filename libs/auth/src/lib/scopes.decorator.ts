import { createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';
import type { Scope } from '@assistant/contracts';
import type { Principal } from './principal';

export const ACCESS_METADATA = 'assistant:access';

/** What a route needs: one scope, or nothing at all for the few public routes. */
export type RouteAccess = { scope: Scope } | { public: true };

/** The scope a token must hold to call this route (SPEC §2). Every route has this or `@Public()`. */
export const Scopes = (scope: Scope) => SetMetadata(ACCESS_METADATA, { scope } satisfies RouteAccess);

/** A route that needs no token (the OpenAPI document, health checks). */
export const Public = () => SetMetadata(ACCESS_METADATA, { public: true } satisfies RouteAccess);

/** The authenticated caller, as set by the access guard (on the request, the first argument of an HTTP context). */
export const CurrentPrincipal = createParamDecorator((_data: unknown, ctx: ExecutionContext): Principal => {
  return ctx.getArgByIndex<{ user: Principal }>(0).user;
});
