import { Logger } from '@nestjs/common';
import { type Cluster } from '@assistant/server/hosting';
import { type ReadinessCheck, newRunnerId, type ServerConfig, mcpLimitsOf } from '@assistant/server-kit';
import { RedisRateLimitStore } from './redis-rate-limit.store';
import { RedisConnections } from './redis-connections';
import { RedisClusterBus } from './redis-cluster-bus';
import { RedisRunSlots } from './redis-run-slots';
import { RedisQueryEventLog } from './redis-query-event-log';
import { RedisConfirmationExchange } from './redis-confirmation-exchange';
import { RedisMcpSessionStore } from './redis-mcp-sessions';
import { RedisRunnerLeases } from './redis-runner-leases';
import { RedisRefreshLock } from './redis-refresh-lock';

/** Beyond the longest run, before a crashed process's run slots and running queries lapse in Redis. */
const LAPSE_MARGIN_MS = 60_000;

export interface RedisSettings {
  url: string;
  keyPrefix: string;
}

/** The parts of a hosted process that live in Redis, shared by every instance. */
export interface RedisParts {
  rateLimits: RedisRateLimitStore;
  queryEvents: RedisQueryEventLog;
  cluster: Cluster;
  readinessCheck: ReadinessCheck;
}

/** Connects to Redis (or fails with one line) and builds every Redis-backed part on the three connections. */
export async function openRedisParts(settings: RedisSettings, config: ServerConfig): Promise<RedisParts> {
  const logger = new Logger('Redis');
  // The cause (an ioredis error) carries no password: ioredis never puts the URL in its messages.
  const onError = (error: unknown, what: string) => logger.error({ err: error, msg: what });
  const redis = await RedisConnections.open(settings.url, settings.keyPrefix);
  const bus = new RedisClusterBus(redis, onError);
  try {
    await bus.start();
  } catch (error) {
    redis.close();
    throw error;
  }
  // A run may wait for a confirmation as long again as it may run (the wait is not its timeout's to cut short).
  const longestRunMs =
    config.queries.limits.runTimeoutMs + config.queries.confirmationTimeoutMs + LAPSE_MARGIN_MS;
  // This process as the runner of its queries: its lease tells every instance that it lives.
  const runners = new RedisRunnerLeases(redis, newRunnerId(), onError);
  runners.start();
  return {
    rateLimits: new RedisRateLimitStore(redis.command, redis.prefix),
    queryEvents: new RedisQueryEventLog(redis, {
      runningTtlSeconds: Math.ceil(longestRunMs / 1000),
      runnerId: runners.runnerId,
      runners,
      onError,
    }),
    cluster: {
      runSlots: new RedisRunSlots(redis, config.queries.maxConcurrentPerUser, longestRunMs, onError),
      bus,
      confirmations: new RedisConfirmationExchange(redis, bus, onError),
      mcpSessions: new RedisMcpSessionStore(redis, mcpLimitsOf(config.mcp), onError),
      refreshLock: new RedisRefreshLock(redis, onError),
      runners,
      close: async () => {
        await runners.stop();
        await bus.close();
        redis.close();
      },
    },
    readinessCheck: {
      name: 'redis',
      check: async () => {
        await redis.command.ping();
      },
    },
  };
}
