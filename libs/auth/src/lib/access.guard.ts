import { Inject, Injectable, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { ACCESS_METADATA, type RouteAccess } from './scopes.decorator';
import { AuthError } from './auth.errors';
import type { Principal } from './principal';

interface RequestLike {
  query?: Record<string, unknown>;
  body?: unknown;
  user?: Principal;
}

/**
 * The global guard: deny by default. A route passes only if it is marked `@Public()`, or the caller presents a
 * valid bearer token holding the scope named by the route's `@Scopes(...)`. A route with neither is refused.
 */
@Injectable()
export class AccessGuard extends AuthGuard('bearer') {
  constructor(@Inject(Reflector) private readonly reflector: Reflector) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.reflector.getAllAndOverride<RouteAccess | undefined>(ACCESS_METADATA, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (access && 'public' in access) return true;

    const request = context.switchToHttp().getRequest<RequestLike>();
    // passport-http-bearer would also take a token from the query string or the body; SPEC §2 allows only the
    // header (URLs end up in logs and browser history, bodies in request dumps).
    if (request.query && 'access_token' in request.query) {
      throw AuthError.invalidToken(
        'tokens in the query string are refused; send Authorization: Bearer <token>',
      );
    }
    if (request.body && typeof request.body === 'object' && 'access_token' in request.body) {
      throw AuthError.invalidToken('tokens in the body are refused; send Authorization: Bearer <token>');
    }
    await super.canActivate(context);
    const principal = request.user as Principal;
    if (!access)
      throw new Error(`route ${context.getClass().name}.${context.getHandler().name} declares no scope`);
    if (!principal.scopes.includes(access.scope)) throw AuthError.insufficientScope(access.scope);
    return true;
  }

  override handleRequest<T>(error: unknown, principal: T): T {
    if (error) throw error;
    if (!principal) throw AuthError.invalidToken('send Authorization: Bearer <token>');
    return principal;
  }
}
