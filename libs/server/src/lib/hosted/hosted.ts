import type { DatabaseConfig } from '@assistant/storage';
import { openStorageFor } from '../config/open-storage';
import { deploymentConfig, type ServerConfig } from '../config/server-config';
import { HOSTED_SETTINGS } from '../config/settings';
import { readSettings, unknownSettingWarnings, warnOnStderr } from '../config/read-settings';
import { MemoryRateLimitStore } from '../rate-limit/rate-limit.store';
import { MemoryQueryEventLog } from '../queries/query-event-log';
import { listen, type RunningServer } from '../running-server';

/** The database alone, for the operator commands: the hosted service runs on PostgreSQL only. */
export function hostedDatabase(env: NodeJS.ProcessEnv): DatabaseConfig {
  return readSettings(HOSTED_SETTINGS.pick({ ASSISTANT_DATABASE_URL: true }), env).ASSISTANT_DATABASE_URL;
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
