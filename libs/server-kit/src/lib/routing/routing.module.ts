import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ENDPOINTS, PROTOCOL_ROUTES, type Endpoint, type ProtocolRoute } from '@assistant/contracts';
import { DECLARED_ENDPOINTS, RouteContractCheck } from './route-contract.check';
import { DECLARED_PROTOCOLS, ProtocolRouteCheck } from './protocol-route.check';

/**
 * Checks at start-up that the application serves exactly the declared endpoints, each with its scope, and every
 * method of the declared protocol routes (MCP). (Path parameters are checked by the pipe `@Route` sets.)
 */
@Module({})
export class RoutingModule {
  static register(
    declared: readonly Endpoint[] = ENDPOINTS,
    protocols: Readonly<Record<string, ProtocolRoute>> = PROTOCOL_ROUTES,
  ): DynamicModule {
    return {
      module: RoutingModule,
      imports: [DiscoveryModule],
      providers: [
        { provide: DECLARED_ENDPOINTS, useValue: declared },
        RouteContractCheck,
        { provide: DECLARED_PROTOCOLS, useValue: protocols },
        ProtocolRouteCheck,
      ],
    };
  }
}
