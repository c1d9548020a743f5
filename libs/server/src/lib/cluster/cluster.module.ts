import { Global, Module, type DynamicModule } from '@nestjs/common';
import { SERVER_CONFIG } from '../ports/core-tokens';
import type { ServerConfig } from '../config/server-config';
import { MemoryRunSlots } from '../queries/run-slots';
import { SINGLE_PROCESS_CONFIRMATIONS } from '../ports/confirmation-exchange';
import { NO_RUNNER_LIVENESS } from '../queries/runner-liveness';
import { mcpLimitsOf } from '../config/mcp-limits';
import { MCP_SESSIONS, MemoryMcpSessionStore } from '../mcp/mcp-sessions';
import { SingleProcessBus, type ClusterBus } from '../ports/cluster-bus';
import type { Cluster } from './cluster';
import { MemoryRefreshLock, REFRESH_LOCK } from '../ports/refresh-lock';
import { ClusterFanout } from './cluster-fanout';
import { CLUSTER_BUS, CONFIRMATION_EXCHANGE, RUN_SLOTS, RUNNER_LIVENESS } from '../ports/cluster-tokens';

/**
 * Hands the deployment's shared pieces (Cluster) to the feature modules, or the single-process ones when it has
 * none: run slots counted in memory, a bus with nobody to tell, confirmations answered here only, no other runner.
 */
@Global()
@Module({})
export class ClusterModule {
  static register(cluster: Cluster | undefined, bus: ClusterBus): DynamicModule {
    return {
      module: ClusterModule,
      providers: [
        { provide: CLUSTER_BUS, useValue: bus },
        {
          provide: RUN_SLOTS,
          inject: [SERVER_CONFIG],
          useFactory: (config: ServerConfig) =>
            cluster?.runSlots ?? new MemoryRunSlots(config.queries.maxConcurrentPerUser),
        },
        { provide: CONFIRMATION_EXCHANGE, useValue: cluster?.confirmations ?? SINGLE_PROCESS_CONFIRMATIONS },
        { provide: RUNNER_LIVENESS, useValue: cluster?.runners ?? NO_RUNNER_LIVENESS },
        {
          provide: MCP_SESSIONS,
          inject: [SERVER_CONFIG],
          useFactory: (config: ServerConfig) =>
            cluster?.mcpSessions ?? new MemoryMcpSessionStore(mcpLimitsOf(config.mcp)),
        },
        { provide: REFRESH_LOCK, useValue: cluster?.refreshLock ?? new MemoryRefreshLock() },
        ClusterFanout,
      ],
      exports: [CLUSTER_BUS, RUN_SLOTS, CONFIRMATION_EXCHANGE, RUNNER_LIVENESS, MCP_SESSIONS, REFRESH_LOCK],
    };
  }
}

/** The bus of a deployment's parts: the cluster's, or one with nobody to tell. */
export function clusterBusOf(cluster: Cluster | undefined): ClusterBus {
  return cluster?.bus ?? new SingleProcessBus();
}
