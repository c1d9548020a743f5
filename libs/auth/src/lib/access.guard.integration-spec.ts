/**
 * The access guard on its own, with the real token service on SQLite: the scope check is the guard's, so removing
 * it must fail a test in this lib, not only in the server's.
 */
import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { openTestStorage } from '@assistant/storage/testing';
import type { Storage } from '@assistant/storage';
import { AccessGuard } from './access.guard';
import { authenticateBearer } from './bearer-authentication';
import { AuthError } from './auth.errors';
import { Public, Scopes } from './scopes.decorator';
import { TokenService } from './token.service';

/** Two routes as a controller declares them; the guard reads only their metadata, never calls them. */
class MemoriesRoutes {
  @Scopes('read:memories')
  list(): string {
    return 'memories';
  }

  @Public()
  health(): string {
    return 'ok';
  }
}

/** What Nest hands the guard for a request to `handler` with these headers. */
function contextFor(handler: keyof MemoriesRoutes, headers: Record<string, string>): ExecutionContext {
  const request = { headers, query: {}, body: undefined };
  return new ExecutionContextHost(
    [request, {}, () => undefined],
    MemoriesRoutes,
    MemoriesRoutes.prototype[handler],
  );
}

/** How `attempt` refused (the guard throws at once when the outcome is known, or rejects after verifying). */
async function refusal(attempt: () => unknown): Promise<AuthError> {
  const error = await Promise.resolve()
    .then(attempt)
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  if (!(error instanceof AuthError)) throw new Error(`expected an AuthError, got ${String(error)}`);
  return error;
}

describe('AccessGuard', () => {
  let storage: Storage;
  let dispose: () => Promise<void>;
  let tokens: TokenService;
  let userId: string;
  let guard: AccessGuard;

  beforeAll(async () => {
    ({ storage, dispose } = await openTestStorage('sqlite'));
    tokens = new TokenService(storage.tokens);
    guard = new AccessGuard(new Reflector(), tokens);
    userId = (await storage.users.create({ email: 'guard@example.com', displayName: 'G' })).id;
  });
  afterAll(async () => dispose());

  const bearer = async (scopes: Parameters<TokenService['issue']>[0]['scopes']) => ({
    authorization: `Bearer ${(await tokens.issue({ userId, kind: 'personal', name: 't', scopes })).secret}`,
  });

  it("lets a token holding the route's scope through", async () => {
    await expect(guard.canActivate(contextFor('list', await bearer(['read:memories'])))).resolves.toBe(true);
  });

  it("refuses a token without the route's scope: 403 insufficient_scope naming the scope", async () => {
    const headers = await bearer(['write:memories', 'read:account']);
    const error = await refusal(() => guard.canActivate(contextFor('list', headers)));

    expect(error.code).toBe('insufficient_scope');
    expect(error.status).toBe(403);
    expect(error.headers).toEqual({
      'www-authenticate': 'Bearer realm="assistant", error="insufficient_scope", scope="read:memories"',
    });
  });

  it('refuses a request without a token: 401 invalid_token', async () => {
    const error = await refusal(() => guard.canActivate(contextFor('list', {})));

    expect(error.code).toBe('invalid_token');
    expect(error.status).toBe(401);
  });

  it('lets anyone through to a public route', async () => {
    expect(await guard.canActivate(contextFor('health', {}))).toBe(true);
  });

  it('reads the outcome of the authentication the request already went through: the token is verified once', async () => {
    const context = contextFor('list', await bearer(['read:memories']));
    const request = context.switchToHttp().getRequest<object>();
    await authenticateBearer(request, tokens);
    const verify = jest.spyOn(tokens, 'verify');

    // Settled, not a promise: nothing left to wait for.
    expect(guard.canActivate(context)).toBe(true);
    expect(verify).not.toHaveBeenCalled();
    verify.mockRestore();
  });

  it('refuses the token the earlier authentication refused', async () => {
    const context = contextFor('list', { authorization: 'Bearer tok_made_up' });
    await authenticateBearer(context.switchToHttp().getRequest<object>(), tokens);

    const error = await refusal(() => guard.canActivate(context));

    expect(error.code).toBe('invalid_token');
  });
});
