/**
 * `@assistant/server/hosting`: what a deployment's composition plugs into beside the ports of
 * `@assistant/server-kit` (query event log, run slots, runner liveness, cluster bus, confirmation exchange,
 * readiness) and `@assistant/mcp-server` (MCP sessions): their in-memory implementations, the start-up it composes
 * with (`listen`), and the account and custom-tools helpers its commands share with the server (sign-in links are
 * `@assistant/web`'s). Both composition roots build on it: `@assistant/hosted` (Redis, any number of instances)
 * and `@assistant/self-host` (one process, one data directory); their settings are `@assistant/server-kit`'s.
 * `@assistant/server` imports neither root and never a backend, so a self-hosted install carries no Redis client.
 */
export { createAccount, parseScopeList, type CreatedAccount } from './lib/accounts/create-account';
export { listen, type RunningServer } from './lib/bootstrap/running-server';
export type { Cluster } from './lib/cluster/cluster';
export { MemoryRateLimitStore, type RateLimitStore } from './lib/rate-limit/rate-limit.store';
export { CustomTools } from './lib/tools/custom/custom-tools';
