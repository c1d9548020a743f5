import { Module, type DynamicModule } from '@nestjs/common';
import { APP_PIPE, DiscoveryModule } from '@nestjs/core';
import { ENDPOINTS, type Endpoint } from '@assistant/contracts';
import { DECLARED_ENDPOINTS, RouteContractCheck } from './route-contract.check';
import { PathParamsPipe } from './path-params.pipe';

/**
 * Checks at start-up that the application serves exactly the declared endpoints, each with its scope, and checks
 * every path parameter of every route (PathParamsPipe).
 */
@Module({})
export class RoutingModule {
  static register(declared: readonly Endpoint[] = ENDPOINTS): DynamicModule {
    return {
      module: RoutingModule,
      imports: [DiscoveryModule],
      providers: [
        { provide: DECLARED_ENDPOINTS, useValue: declared },
        RouteContractCheck,
        { provide: APP_PIPE, useClass: PathParamsPipe },
      ],
    };
  }
}
