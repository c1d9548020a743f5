import { Global, Module, type DynamicModule } from '@nestjs/common';
import {
  SERVER_CONFIG,
  type ServerConfig,
  SINGLE_PROCESS_CONFIRMATIONS,
  mcpLimitsOf,
  SingleProcessBus,
  type ClusterBus,
  MemoryRefreshLock,
  REFRESH_LOCK,
  CLUSTER_BUS,
  CONFIRMATION_EXCHANGE,
  RUN_SLOTS,
  RUNNER_LIVENESS,
  NO_RUNNER_LIVENESS,
} from '@assistant/server-kit';
import { MemoryRunSlots } from '@assistant/queries';
import { MCP_SESSIONS, MemoryMcpSessionStore } from '@assistant/mcp-server';
import type { Cluster } from './cluster';
import { ClusterFanout } from './cluster-fanout';

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
