import type { DatabaseConfig } from '@assistant/storage';
import { readSettings, unknownSettingWarnings, warnOnStderr } from './read-settings';
import { deploymentConfig, type ServerConfig } from './server-config';
import { HOSTED_SETTINGS } from './settings';

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
    // Revocations are broadcast between the instances (ClusterFanout), so verified tokens may be cached; the TTL
    // only bounds how long a revocation made while Redis was unreachable can go unheard on another instance.
    tokenCacheTtlMs: 30_000,
  };
}
