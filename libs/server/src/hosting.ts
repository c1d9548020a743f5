/**
 * `@assistant/server/hosting`: what a deployment's composition plugs into — the ports a shared-state backend
 * implements (query event log, run slots, runner liveness, cluster bus, confirmation exchange, MCP sessions,
 * readiness) and their in-memory implementations, the start-up it composes with (`listen`), and the account,
 * sign-in, custom-tools and secrets helpers its commands share with the server. Both composition roots build on it:
 * `@assistant/hosted` (Redis, any number of instances) and `@assistant/self-host` (one process, one data
 * directory); their settings are `@assistant/server-kit`'s. `@assistant/server` imports neither root and never a
 * backend, so a self-hosted install carries no Redis client.
 */
export { createAccount, parseScopeList, type CreatedAccount } from './lib/accounts/create-account';
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
export { CustomTools } from './lib/tools/custom/custom-tools';
export { normalEmail } from './lib/web/password-accounts';
export { issueSignInLink, useSignInLink } from './lib/web/sign-in-links';
