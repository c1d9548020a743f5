import { HOSTED_RATE_LIMITS } from '@assistant/contracts';
import { postgresConfigFromUrl, type DatabaseConfig } from '@assistant/storage';
import { openStorageFor } from '../config/open-storage';
import {
  ConfigError,
  logLevel,
  portNumber,
  rateLimitsFromEnv,
  type ServerConfig,
} from '../config/server-config';
import { queryConfigFromEnv } from '../config/query-config';
import { MemoryRateLimitStore } from '../rate-limit/rate-limit.store';
import { MemoryQueryEventLog } from '../queries/query-event-log';
import { listen, type RunningServer } from '../running-server';

/** The hosted service runs on PostgreSQL only; without a URL it refuses to start. */
export function hostedDatabase(env: NodeJS.ProcessEnv): DatabaseConfig {
  const url = env.ASSISTANT_DATABASE_URL;
  if (!url) {
    throw new ConfigError(
      'ASSISTANT_DATABASE_URL is required: the hosted API runs on PostgreSQL (postgres://user@host:5432/db)',
    );
  }
  try {
    return postgresConfigFromUrl(url);
  } catch (error) {
    throw new ConfigError(`ASSISTANT_DATABASE_URL: ${(error as Error).message}`);
  }
}

export function hostedConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  return {
    deployment: 'hosted',
    host: env.ASSISTANT_HOST ?? '0.0.0.0',
    port: portNumber('ASSISTANT_PORT', env.ASSISTANT_PORT, 8080),
    database: hostedDatabase(env),
    rateLimits: rateLimitsFromEnv(env, HOSTED_RATE_LIMITS),
    logLevel: logLevel(env.ASSISTANT_LOG_LEVEL, 'info'),
    trustProxy: env.ASSISTANT_TRUST_PROXY === 'true',
    queries: queryConfigFromEnv(env),
    tokenCacheTtlMs: 0,
  };
}

/**
 * The hosted composition root. Migrations are not run here: several API processes start at once, so the
 * schema is brought up to date by one explicit `assistant-hosted-ops migrate` before a deploy.
 */
export async function startHosted(env: NodeJS.ProcessEnv = process.env): Promise<RunningServer> {
  const config = hostedConfig(env);
  const storage = await openStorageFor(config.database, 'require-current');
  // Redis-backed stores come with the hosted Redis work; until then each process counts and keeps query events
  // on its own, so a resumed stream must reach the process that runs the query.
  const parts = { storage, rateLimits: new MemoryRateLimitStore(), queryEvents: new MemoryQueryEventLog() };
  return listen(config, parts).catch(async (error: unknown) => {
    await storage.close();
    throw error;
  });
}
