import { listen, type RunningServer } from '@assistant/server/hosting';
import {
  HOSTED_SETTINGS,
  hostedConfig,
  openStorageFor,
  readSettings,
  startTracing,
  warnOnStderr,
} from '@assistant/server-kit';
import { openRedisParts, type RedisSettings } from './redis/redis-parts';

/** Where the hosted service's shared state lives (`ASSISTANT_REDIS_URL`, `ASSISTANT_REDIS_KEY_PREFIX`). */
export function hostedRedis(env: NodeJS.ProcessEnv): RedisSettings {
  const settings = readSettings(
    HOSTED_SETTINGS.pick({ ASSISTANT_REDIS_URL: true, ASSISTANT_REDIS_KEY_PREFIX: true }),
    env,
  );
  return { url: settings.ASSISTANT_REDIS_URL, keyPrefix: settings.ASSISTANT_REDIS_KEY_PREFIX };
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
