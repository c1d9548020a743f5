import { mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { OperatorError } from '@assistant/contracts';
import { sqliteFileIn, type DatabaseConfig } from '@assistant/storage';
import {
  openStorageFor,
  deploymentConfig,
  type ServerConfig,
  SELF_HOST_SETTINGS,
  type SelfHostFlags,
  readSettings,
  unknownSettingWarnings,
  warnOnStderr,
  terminalLogDestination,
} from '@assistant/server-kit';
import { MemoryRateLimitStore } from '../rate-limit/rate-limit.store';
import { MemoryQueryEventLog } from '../queries/query-event-log';
import { listen, type RunningServer } from '../bootstrap/running-server';
import { lockDataDir } from './data-dir-lock';
import { credentialsFileIn, resolveDataDir } from '@assistant/client/local';
import { writeCredentials } from './credentials-file';
import { ensureOwner } from './owner-account';
import { createAccount, parseScopeList, type CreatedAccount } from '../accounts/create-account';
import { issueSignInLink } from '../web/sign-in-links';
import { CustomTools } from '../tools/custom/custom-tools';
import { refuseUnknownDatabase, rememberDatabase, rememberedDatabase } from './remembered-database';

/** The flags of `assistant serve`: `model` is the default model, and so on (config/settings.ts). */
export type SelfHostOptions = SelfHostFlags;

export interface SelfHostServer extends RunningServer {
  dataDir: string;
  credentialsFile: string;
  database: DatabaseConfig['dialect'];
  /** True on the first run, when the owner account was created. */
  createdOwner: boolean;
  /** True when a new owner token was written to the credentials file. */
  issuedOwnerToken: boolean;
  /** A one-time link that signs the owner in to /profile (single-use, valid 15 minutes). */
  signInLink: string;
  /** The custom tools folder and the tools it held at start. */
  customTools: { folder: string; tools: string[] };
}

/** Flags win over `ASSISTANT_*` variables, which win over the defaults (SELF_HOST_SETTINGS). */
export function selfHostConfig(
  options: SelfHostOptions,
  env: NodeJS.ProcessEnv = process.env,
  warn: (line: string) => void = warnOnStderr,
): ServerConfig & { dataDir: string; customToolsDir: string } {
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
    throw new OperatorError(
      `cannot create the data directory ${config.dataDir}: ${(error as Error).message}`,
    );
  }
  // A folder given by name must be there (a typo would load nothing); the default one is made at start.
  if (config.customToolsDir !== defaultToolsDir(config.dataDir) && !isDirectory(config.customToolsDir)) {
    throw new OperatorError(
      `the custom tools folder ${config.customToolsDir} does not exist or is no folder`,
    );
  }
  const lock = lockDataDir(config.dataDir);
  try {
    refuseUnknownDatabase(config.dataDir, config.database);
    const storage = await openStorageFor(config.database, 'run');
    try {
      rememberDatabase(config.dataDir, config.database);
    } catch (error) {
      await storage.close();
      throw new OperatorError(`cannot write to ${config.dataDir}: ${(error as Error).message}`);
    }
    const credentialsFile = credentialsFileIn(config.dataDir);
    let owner;
    try {
      owner = await ensureOwner(storage, credentialsFile);
    } catch (error) {
      await storage.close();
      throw error;
    }
    const parts = {
      storage,
      rateLimits: new MemoryRateLimitStore(),
      queryEvents: new MemoryQueryEventLog(),
      // Readable lines on a terminal, beside the ones `assistant serve` prints; JSON lines anywhere else.
      logDestination: terminalLogDestination(),
    };
    const server = await listen(config, parts, () => lock.release()).catch(async (error: unknown) => {
      await storage.close();
      throw error;
    });
    try {
      writeCredentials(credentialsFile, { base_url: server.url, ...owner.credentials });
    } catch (error) {
      await server.close();
      throw new OperatorError(`cannot write ${credentialsFile}: ${(error as Error).message}`);
    }
    let signInLink: string;
    try {
      signInLink = await issueSignInLink(storage, owner.credentials.user_id, config.publicUrl ?? server.url);
    } catch (error) {
      await server.close();
      throw error;
    }
    return {
      ...server,
      dataDir: config.dataDir,
      credentialsFile,
      database: config.database.dialect,
      createdOwner: owner.createdAccount,
      issuedOwnerToken: owner.issuedToken,
      signInLink,
      customTools: server.app.get(CustomTools).describe() ?? { folder: config.customToolsDir, tools: [] },
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
  refuseUnknownDatabase(config.dataDir, config.database);
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

/** Where a self-hosted server looks for custom tool modules unless told otherwise. */
export function defaultToolsDir(dataDir: string): string {
  return join(dataDir, 'tools');
}

function isDirectory(path: string | undefined): boolean {
  return path !== undefined && (statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false);
}
