import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { ENDPOINTS, PROTOCOL_ROUTES, type Endpoint, type ProtocolRoute } from '@assistant/contracts';
import { Public, Scopes } from '@assistant/auth';
import { Route } from './route.decorator';
import { routeMismatches } from './route-contract.check';
import { protocolRouteMismatches } from './protocol-route.check';
import { RoutingModule } from './routing.module';

const endpoint = (operationId: string) => ENDPOINTS.find((e) => e.operationId === operationId) as Endpoint;
const getMe = endpoint('getMe');
const getMemory = endpoint('getMemory');

@Controller()
class AgreeingController {
  @Route('getMe')
  me() {
    return {};
  }
}

@Controller()
class UndeclaredController {
  @Get('extra')
  @Scopes('read:account')
  extra() {
    return {};
  }
}

@Controller()
class ForgotScopeController {
  @Get('forgotten')
  forgotten() {
    return {};
  }
}

@Controller()
class OtherScopeController {
  // Decorators apply bottom-up: this one is applied after @Route's own scope, overriding it.
  @Scopes('read:memories')
  @Route('getMe')
  me() {
    return {};
  }
}

@Controller()
class MadePublicController {
  @Public()
  @Route('getMe')
  me() {
    return {};
  }
}

@Controller('v2')
class MovedController {
  @Route('getMe')
  me() {
    return {};
  }
}

describe('routeMismatches: the served routes against the declared contract', () => {
  it('finds nothing when every declared route is served as declared', () => {
    expect(routeMismatches([AgreeingController], [getMe])).toEqual([]);
  });

  it('refuses a route that is served but not declared', () => {
    expect(routeMismatches([AgreeingController, UndeclaredController], [getMe])).toEqual([
      'GET /extra (UndeclaredController.extra) is served but not declared',
    ]);
  });

  it('refuses a route with no scope that is not public', () => {
    expect(routeMismatches([ForgotScopeController], [])).toContain(
      'GET /forgotten (ForgotScopeController.forgotten) has no scope and is not public',
    );
  });

  it('refuses a route guarded by another scope than declared, or made public', () => {
    expect(routeMismatches([OtherScopeController], [getMe])).toEqual([
      'GET /me (OtherScopeController.me) differs in scope: declared scope read:account, served with scope read:memories',
    ]);
    expect(routeMismatches([MadePublicController], [getMe])).toEqual([
      'GET /me (MadePublicController.me) differs in scope: declared scope read:account, served with public',
    ]);
  });

  it('refuses a route served at another path than declared', () => {
    expect(routeMismatches([MovedController], [getMe])).toEqual([
      'GET /v2/me (MovedController.me) is declared as getMe: GET /me',
    ]);
  });

  it('refuses a declared route that nothing serves', () => {
    expect(routeMismatches([AgreeingController], [getMe, getMemory])).toEqual([
      'getMemory (GET /memories/{id}) is declared but not served',
    ]);
  });
});

describe('protocolRouteMismatches', () => {
  const mcp = { ...PROTOCOL_ROUTES.mcp, methods: ['POST', 'GET'] as const };

  it('is empty when every method of every declared protocol is served', () => {
    expect(protocolRouteMismatches(() => true, { mcp })).toEqual([]);
  });

  it('names each declared method that is not served', () => {
    const served = (route: { method: string; url: string }) =>
      route.method === 'POST' && route.url === '/api/v1/mcp';

    expect(protocolRouteMismatches(served, { mcp })).toEqual([
      'mcp (GET /api/v1/mcp) is declared but not served',
    ]);
  });
});

describe('RoutingModule at start-up', () => {
  async function init(
    controllers: (new () => object)[],
    declared: Endpoint[],
    protocols: Record<string, ProtocolRoute> = {},
  ): Promise<void> {
    @Module({ imports: [RoutingModule.register(declared, protocols)], controllers })
    class TestModule {}
    const app = await NestFactory.create(TestModule, new FastifyAdapter(), {
      logger: false,
      abortOnError: false,
    });
    try {
      await app.init();
    } finally {
      await app.close();
    }
  }

  it('starts when the routes agree with the contract', async () => {
    await expect(init([AgreeingController], [getMe])).resolves.toBeUndefined();
  });

  it('refuses to start, naming each difference, when they do not', async () => {
    await expect(init([AgreeingController, ForgotScopeController], [getMe, getMemory])).rejects.toThrow(
      /forgotten.*has no scope and is not public[\s\S]*getMemory .* is declared but not served/,
    );
  });

  it('refuses to start when a declared protocol route (MCP) is not served', async () => {
    await expect(init([AgreeingController], [getMe], { mcp: PROTOCOL_ROUTES.mcp })).rejects.toThrow(
      /mcp \(POST \/api\/v1\/mcp\) is declared but not served/,
    );
  });
});
