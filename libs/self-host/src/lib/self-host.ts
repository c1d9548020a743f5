import { mkdirSync, statSync } from 'node:fs';
import { OperatorError } from '@assistant/contracts';
import type { DatabaseConfig } from '@assistant/storage';
import { credentialsFileIn } from '@assistant/client/local';
import {
  defaultToolsDir,
  openStorageFor,
  selfHostConfig,
  type SelfHostFlags,
  terminalLogDestination,
} from '@assistant/server-kit';
import {
  createAccount,
  CustomTools,
  listen,
  MemoryRateLimitStore,
  parseScopeList,
  type CreatedAccount,
  type RunningServer,
} from '@assistant/server/hosting';
import { MemoryQueryEventLog } from '@assistant/queries';
import { issueSignInLink } from '@assistant/web';
import { writeCredentials } from './credentials-file';
import { lockDataDir } from './data-dir-lock';
import { ensureOwner } from './owner-account';
import { refuseUnknownDatabase, rememberDatabase } from './remembered-database';

/** The flags of `assistant serve`: `model` is the default model, and so on (@assistant/server-kit's settings). */
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

function isDirectory(path: string | undefined): boolean {
  return path !== undefined && (statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false);
}
