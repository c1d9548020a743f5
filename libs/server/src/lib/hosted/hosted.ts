import type { DatabaseConfig } from '@assistant/storage';
import { openStorageFor } from '../config/open-storage';
import { deploymentConfig, type ServerConfig } from '../config/server-config';
import { HOSTED_SETTINGS } from '../config/settings';
import { readSettings, unknownSettingWarnings, warnOnStderr } from '../config/read-settings';
import { listen, type RunningServer } from '../bootstrap/running-server';
import type { RedisSettings } from '../redis/redis-parts';
import { startTracing } from '../tracing/start-tracing';

/** The database alone, for the operator commands: the hosted service runs on PostgreSQL only. */
export function hostedDatabase(env: NodeJS.ProcessEnv): DatabaseConfig {
  return readSettings(HOSTED_SETTINGS.pick({ ASSISTANT_DATABASE_URL: true }), env).ASSISTANT_DATABASE_URL;
}

/** Where the hosted service's shared state lives (`ASSISTANT_REDIS_URL`, `ASSISTANT_REDIS_KEY_PREFIX`). */
export function hostedRedis(env: NodeJS.ProcessEnv): RedisSettings {
  const settings = readSettings(
    HOSTED_SETTINGS.pick({ ASSISTANT_REDIS_URL: true, ASSISTANT_REDIS_KEY_PREFIX: true }),
    env,
  );
  return { url: settings.ASSISTANT_REDIS_URL, keyPrefix: settings.ASSISTANT_REDIS_KEY_PREFIX };
}

/** The hosted service's configuration from its environment (HOSTED_SETTINGS); it has no flags. */
export function hostedConfig(
  env: NodeJS.ProcessEnv = process.env,
  warn: (line: string) => void = warnOnStderr,
): ServerConfig {
  const settings = readSettings(HOSTED_SETTINGS, env);
  unknownSettingWarnings(HOSTED_SETTINGS, env, 'the hosted API').forEach(warn);
  return {
    deployment: 'hosted',
    ...deploymentConfig(settings),
    database: settings.ASSISTANT_DATABASE_URL,
    secretsKey: settings.ASSISTANT_SECRETS_KEY,
    // Revocations are broadcast between the instances (ClusterFanout), so verified tokens may be cached; the TTL
    // only bounds how long a revocation made while Redis was unreachable can go unheard on another instance.
    tokenCacheTtlMs: 30_000,
  };
}

/**
 * The hosted composition root. Migrations are not run here: several API processes start at once, so the
 * schema is brought up to date by one explicit `assistant-hosted-ops migrate` before a deploy.
 */
export async function startHosted(env: NodeJS.ProcessEnv = process.env): Promise<RunningServer> {
  const config = hostedConfig(env);
  // Before the Redis connections are made, so that their commands are traced when tracing is on.
  const tracingWarning = startTracing(`assistant-${config.deployment}`, env);
  if (tracingWarning) warnOnStderr(tracingWarning);
  const storage = await openStorageFor(config.database, 'require-current');
  let redis;
  try {
    // Required here, not at the top: the self-hosted server loads this module too and never needs ioredis.
    const { openRedisParts } = require('../redis/redis-parts') as typeof import('../redis/redis-parts');
    redis = await openRedisParts(hostedRedis(env), config);
  } catch (error) {
    await storage.close();
    throw error;
  }
  // Every instance shares rate-limit counts, run slots, live query events, revocations and confirmations through
  // Redis: any number of them can run behind one load balancer.
  const parts = {
    storage,
    rateLimits: redis.rateLimits,
    queryEvents: redis.queryEvents,
    cluster: redis.cluster,
    readinessChecks: [redis.readinessCheck],
  };
  return listen(config, parts).catch(async (error: unknown) => {
    parts.queryEvents.close();
    await redis.cluster.close();
    await storage.close();
    throw error;
  });
}
