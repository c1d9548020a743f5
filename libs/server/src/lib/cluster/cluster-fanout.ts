import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { TokenService } from '@assistant/auth';
import { type ClusterBus, CLUSTER_BUS } from '@assistant/server-kit';

/**
 * Acts on revocations made by the deployment's other processes: their tokens leave this process's
 * verified-token cache at once. (Revocations made here reach the bus through TokenService's `onForget`; tool
 * changes through the ToolCatalog.) A process that lost the bus for a while may have missed some, so it forgets
 * every cached token when the bus is back: the next request of each asks the database once.
 */
@Injectable()
export class ClusterFanout implements OnModuleInit, OnApplicationShutdown {
  private stops: Array<() => void> = [];

  constructor(
    @Inject(CLUSTER_BUS) private readonly bus: ClusterBus,
    private readonly tokens: TokenService,
  ) {}

  onModuleInit(): void {
    this.stops = [
      this.bus.subscribe('principals.forgotten', (match) => void this.tokens.forget(match, 'peer')),
      this.bus.onReconnect(() => void this.tokens.forget({}, 'peer')),
    ];
  }

  onApplicationShutdown(): void {
    for (const stop of this.stops) stop();
  }
}
