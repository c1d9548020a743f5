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
export type { ReadinessCheck } from './lib/health/readiness';
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
export type { RunnerLiveness } from './lib/queries/runner-liveness';
export { MemoryRateLimitStore, type RateLimitStore } from './lib/rate-limit/rate-limit.store';
