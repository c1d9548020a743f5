import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ENDPOINTS, type Endpoint } from '@assistant/contracts';
import { DECLARED_ENDPOINTS, RouteContractCheck } from './route-contract.check';

/** Checks at start-up that the application serves exactly the declared endpoints, each with its scope. */
@Module({})
export class RoutingModule {
  static register(declared: readonly Endpoint[] = ENDPOINTS): DynamicModule {
    return {
      module: RoutingModule,
      imports: [DiscoveryModule],
      providers: [{ provide: DECLARED_ENDPOINTS, useValue: declared }, RouteContractCheck],
    };
  }
}
