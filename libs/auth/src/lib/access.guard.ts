import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Scope } from '@assistant/contracts';
import { ACCESS_METADATA, type RouteAccess } from './scopes.decorator';
import { AuthError } from './auth.errors';
import type { Principal } from './principal';
import { authenticateBearer, settledBearerOutcome, type BearerOutcome } from './bearer-authentication';
import { TokenService } from './token.service';

interface RequestLike {
  query?: Record<string, unknown>;
  body?: unknown;
  user?: Principal;
}

/**
 * The global guard: deny by default. A route passes only if it is marked `@Public()`, or the caller presents a
 * valid bearer token holding the scope named by the route's `@Scopes(...)`. A route with neither is refused.
 *
 * The token is verified once per request: by the rate limiter as the request arrives, whose outcome the guard
 * reads (synchronously: no promise per request), or here when it has not run.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  /** Each route's access (by its class, then its handler), read from their metadata once: routes are fixed. */
  private readonly accessByRoute = new WeakMap<object, Map<object, RouteAccess | undefined>>();

  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(TokenService) private readonly tokens: TokenService,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const access = this.accessOf(context);
    if (access && 'public' in access) return true;

    // The request of an HTTP context (switchToHttp() makes three closures a call).
    const request = context.getArgByIndex<RequestLike>(0);
    // Only the header carries a token (SPEC §2): URLs end up in logs and browser history, bodies in request dumps.
    if (request.query && 'access_token' in request.query) {
      throw AuthError.invalidToken(
        'tokens in the query string are refused; send Authorization: Bearer <token>',
      );
    }
    if (request.body && typeof request.body === 'object' && 'access_token' in request.body) {
      throw AuthError.invalidToken('tokens in the body are refused; send Authorization: Bearer <token>');
    }
    const outcome = settledBearerOutcome(request) ?? authenticateBearer(request, this.tokens);
    if (!(outcome instanceof Promise)) return this.admit(outcome, request, access, context);
    return outcome.then((settled) => this.admit(settled, request, access, context));
  }

  /** Lets the caller through when its token was verified and holds the route's scope; throws otherwise. */
  private admit(
    outcome: BearerOutcome,
    request: RequestLike,
    access: { scope: Scope } | undefined,
    context: ExecutionContext,
  ): boolean {
    if ('refusal' in outcome) throw outcome.refusal;
    request.user = outcome.principal;
    if (!access)
      throw new Error(`route ${context.getClass().name}.${context.getHandler().name} declares no scope`);
    if (!outcome.principal.scopes.includes(access.scope)) throw AuthError.insufficientScope(access.scope);
    return true;
  }

  private accessOf(context: ExecutionContext): RouteAccess | undefined {
    const routes = context.getClass();
    const handler = context.getHandler();
    let byHandler = this.accessByRoute.get(routes);
    if (!byHandler) this.accessByRoute.set(routes, (byHandler = new Map()));
    if (!byHandler.has(handler)) {
      byHandler.set(
        handler,
        this.reflector.getAllAndOverride<RouteAccess | undefined>(ACCESS_METADATA, [handler, routes]),
      );
    }
    return byHandler.get(handler);
  }
}
