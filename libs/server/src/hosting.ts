/**
 * `@assistant/server/hosting`: what a deployment's composition plugs into — the ports a shared-state backend
 * implements (query event log, run slots, runner liveness, cluster bus, confirmation exchange, MCP sessions,
 * readiness), the settings and start-up it composes with, and the helpers those implementations share with the
 * in-memory ones. `@assistant/hosted` (Redis) builds on it; `@assistant/server` itself never imports a backend,
 * so a self-hosted install carries no Redis client.
 */
export { createAccount, parseScopeList } from './lib/accounts/create-account';
export { listen, type RunningServer } from './lib/bootstrap/running-server';
export type { Cluster } from './lib/cluster/cluster';
export { hostedConfig, hostedDatabase } from './lib/config/hosted-config';
export { mcpLimitsOf, type McpLimits } from './lib/config/mcp-limits';
export { openStorageFor } from './lib/config/open-storage';
export { readSettings, unknownSettingWarnings, warnOnStderr } from './lib/config/read-settings';
export { deploymentConfig, type ServerConfig } from './lib/config/server-config';
export { HOSTED_SETTINGS } from './lib/config/settings';
export type { ReadinessCheck } from './lib/health/readiness';
export { ApiError } from './lib/http/api-error';
export {
  credentialOf,
  newSessionId,
  requestKey,
  MemoryMcpSessionStore,
  type McpSession,
  type McpSessionStore,
  type RequestId,
} from './lib/mcp/mcp-sessions';
export { listClients, registerClient } from './lib/oauth/clients';
export type { ClusterBus, ClusterMessages, ClusterTopic } from './lib/ports/cluster-bus';
export type { AnswerResult, ConfirmationExchange } from './lib/ports/confirmation-exchange';
export { eventJson } from './lib/queries/event-json';
export { PendingConfirmations } from './lib/queries/pending-confirmations';
export {
  endStatusOf,
  MemoryQueryEventLog,
  newRunnerId,
  statusAfter,
  type NewQueryRecord,
  type QueryEventListener,
  type QueryEventLog,
  type QueryRecord,
} from './lib/queries/query-event-log';
export { runCapReached, type ReleaseRunSlot, type RunSlots } from './lib/queries/run-slots';
export { type RefreshLock } from './lib/ports/refresh-lock';
export type { RunnerLiveness } from './lib/queries/runner-liveness';
export { MemoryRateLimitStore, type RateLimitStore } from './lib/rate-limit/rate-limit.store';
export { startTracing } from './lib/tracing/start-tracing';
export { markFailed, tracing, type Tracing } from './lib/tracing/tracing';
