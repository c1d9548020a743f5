import { mkdirSync } from 'node:fs';
import { postgresConfigFromUrl, sqliteFileIn, type DatabaseConfig } from '@assistant/storage';
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
import { lockDataDir } from './data-dir-lock';
import { credentialsFileIn, resolveDataDir } from '@assistant/client';
import { writeCredentials } from './credentials-file';
import { ensureOwner } from './owner-account';
import { createAccount, parseScopeList, type CreatedAccount } from '../accounts/create-account';

export const SELF_HOST_DEFAULTS = { host: '127.0.0.1', port: 7747 } as const;

/** A self-hosted server answers one household: generous limits, configurable by environment. */
const SELF_HOST_RATE_LIMITS = {
  core: { limit: 20_000, windowSeconds: 3_600 },
  queries: { limit: 600, windowSeconds: 3_600 },
  auth: { limit: 600, windowSeconds: 3_600 },
};

export interface SelfHostOptions {
  host?: string;
  port?: number | string;
  dataDir?: string;
  databaseUrl?: string;
  /** The default model (`--model`); otherwise ASSISTANT_MODEL, otherwise `builtin`. */
  model?: string;
}

export interface SelfHostServer extends RunningServer {
  dataDir: string;
  credentialsFile: string;
  database: DatabaseConfig['dialect'];
  /** True on the first run, when the owner account was created. */
  createdOwner: boolean;
  /** True when a new owner token was written to the credentials file. */
  issuedOwnerToken: boolean;
}

/** Flags win over `ASSISTANT_*` variables, which win over the defaults. */
export function selfHostConfig(
  options: SelfHostOptions,
  env: NodeJS.ProcessEnv = process.env,
): ServerConfig & { dataDir: string } {
  const dataDir = resolveDataDir(options.dataDir, env);
  const databaseUrl = options.databaseUrl ?? env.ASSISTANT_DATABASE_URL;
  let database: DatabaseConfig;
  try {
    database = databaseUrl
      ? postgresConfigFromUrl(databaseUrl)
      : { dialect: 'sqlite', file: sqliteFileIn(dataDir) };
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  return {
    deployment: 'self-hosted',
    host: options.host ?? env.ASSISTANT_HOST ?? SELF_HOST_DEFAULTS.host,
    port: portNumber('the port', options.port ?? env.ASSISTANT_PORT, SELF_HOST_DEFAULTS.port),
    database,
    rateLimits: rateLimitsFromEnv(env, SELF_HOST_RATE_LIMITS),
    logLevel: logLevel(env.ASSISTANT_LOG_LEVEL, 'warn'),
    trustProxy: env.ASSISTANT_TRUST_PROXY === 'true',
    queries: queryConfigFromEnv(env, { model: options.model }),
    tokenCacheTtlMs: 60_000,
    dataDir,
  };
}

/**
 * The self-hosted composition root: one data directory, the embedded database (or PostgreSQL when given a URL),
 * migrations applied at start, the owner account and its credentials file, then the API on 127.0.0.1:7747.
 */
export async function startSelfHost(
  options: SelfHostOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<SelfHostServer> {
  const config = selfHostConfig(options, env);
  try {
    mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new ConfigError(`cannot create the data directory ${config.dataDir}: ${(error as Error).message}`);
  }
  const lock = lockDataDir(config.dataDir);
  try {
    const storage = await openStorageFor(config.database, 'run');
    const credentialsFile = credentialsFileIn(config.dataDir);
    let owner;
    try {
      owner = await ensureOwner(storage, credentialsFile);
    } catch (error) {
      await storage.close();
      throw error;
    }
    const parts = { storage, rateLimits: new MemoryRateLimitStore(), queryEvents: new MemoryQueryEventLog() };
    const server = await listen(config, parts, () => lock.release()).catch(async (error: unknown) => {
      await storage.close();
      throw error;
    });
    try {
      writeCredentials(credentialsFile, { base_url: server.url, ...owner.credentials });
    } catch (error) {
      await server.close();
      throw new ConfigError(`cannot write ${credentialsFile}: ${(error as Error).message}`);
    }
    return {
      ...server,
      dataDir: config.dataDir,
      credentialsFile,
      database: config.database.dialect,
      createdOwner: owner.createdAccount,
      issuedOwnerToken: owner.issuedToken,
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/**
 * Adds a member to a self-hosted household (`assistant accounts add`). Works beside a running server: SQLite in
 * WAL mode takes one more writer safely.
 */
export async function addSelfHostAccount(
  options: Pick<SelfHostOptions, 'dataDir' | 'databaseUrl'> & {
    email?: string;
    displayName?: string;
    scopes?: string;
  },
  env: NodeJS.ProcessEnv = process.env,
): Promise<CreatedAccount> {
  const config = selfHostConfig(options, env);
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const storage = await openStorageFor(config.database, 'run');
  try {
    return await createAccount(storage, {
      email: options.email,
      displayName: options.displayName,
      scopes: parseScopeList(options.scopes),
    });
  } finally {
    await storage.close();
  }
}
