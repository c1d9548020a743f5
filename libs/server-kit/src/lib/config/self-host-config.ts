import { join, resolve } from 'node:path';
import { sqliteFileIn } from '@assistant/storage';
import { resolveDataDir } from '@assistant/client/local';
import { readSettings, unknownSettingWarnings, warnOnStderr } from './read-settings';
import { rememberedDatabase } from './remembered-database';
import { deploymentConfig, type ServerConfig } from './server-config';
import { SELF_HOST_SETTINGS, type SelfHostFlags } from './settings';

/** A self-hosted server's configuration: the server's, and the data directory and custom tools folder it uses. */
export type SelfHostConfig = ServerConfig & { dataDir: string; customToolsDir: string };

/**
 * The self-hosted server's configuration from its flags (`assistant serve`) and environment: flags win over
 * `ASSISTANT_*` variables, which win over the defaults (SELF_HOST_SETTINGS).
 */
export function selfHostConfig(
  options: SelfHostFlags,
  env: NodeJS.ProcessEnv = process.env,
  warn: (line: string) => void = warnOnStderr,
): SelfHostConfig {
  const settings = readSettings(SELF_HOST_SETTINGS, env, options);
  unknownSettingWarnings(SELF_HOST_SETTINGS, env, 'the self-hosted server').forEach(warn);
  // The clients find the data directory with the same function, so that they read the credentials written here.
  const dataDir = resolveDataDir(settings.ASSISTANT_DATA_DIR, env);
  return {
    deployment: 'self-hosted',
    ...deploymentConfig(settings),
    // A data directory set up with PostgreSQL remembers it (remembered-database.ts): a URL given wins.
    database: settings.ASSISTANT_DATABASE_URL ??
      rememberedDatabase(dataDir) ?? { dialect: 'sqlite', file: sqliteFileIn(dataDir) },
    tokenCacheTtlMs: 60_000,
    secretsKey: settings.ASSISTANT_SECRETS_KEY,
    dataDir,
    customToolsDir: settings.ASSISTANT_TOOLS_DIR
      ? resolve(settings.ASSISTANT_TOOLS_DIR)
      : defaultToolsDir(dataDir),
  };
}

/** Where a self-hosted server looks for custom tool modules unless told otherwise. */
export function defaultToolsDir(dataDir: string): string {
  return join(dataDir, 'tools');
}
