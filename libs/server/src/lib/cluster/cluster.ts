import type {
  ClusterBus,
  ConfirmationExchange,
  RefreshLock,
  RunSlots,
  RunnerLiveness,
} from '@assistant/server-kit';
import type { McpSessionStore } from '@assistant/mcp-server';

/**
 * What the processes of a deployment share beyond the database, rate limits and query events: the
 * concurrent-run cap, the bus that carries revocations and tool changes, confirmations answered on another
 * process, and whether the process that runs a query is still there. The hosted service builds it on Redis (redis/redis-cluster.ts); a self-hosted server is one process
 * and has none.
 */
export interface Cluster {
  runSlots: RunSlots;
  bus: ClusterBus;
  confirmations: ConfirmationExchange;
  runners: RunnerLiveness;
  /** The sessions of 2025-revision MCP clients, which any instance serves (kept in memory when absent). */
  mcpSessions?: McpSessionStore;
  /** A lock per OAuth grant while its tokens are refreshed, across instances (one process's when absent). */
  refreshLock?: RefreshLock;
  close(): Promise<void>;
}
