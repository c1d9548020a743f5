import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { dataSourceOptions, type DatabaseConfig, type Dialect } from './data-source-options';
import { StorageError } from './errors';
import { Sql } from './sql';
import { UsersRepository } from './repositories/users.repository';
import { TokensRepository } from './repositories/tokens.repository';
import { DiscussionsRepository } from './repositories/discussions.repository';
import { MemoriesRepository } from './repositories/memories.repository';
import { QueriesRepository } from './repositories/queries.repository';
import { ConnectionsRepository } from './repositories/connections.repository';
import { PairingCodesRepository } from './repositories/pairing-codes.repository';
import { OAuthRecordsRepository } from './repositories/oauth-records.repository';
import { IntegrationActivityRepository } from './repositories/integration-activity.repository';
import { WebSessionsRepository } from './repositories/web-sessions.repository';
import { SignInLinksRepository } from './repositories/sign-in-links.repository';
import { SignInFailuresRepository } from './repositories/sign-in-failures.repository';

/** The database behind the repositories. TypeORM stays inside: users get repositories and these few methods. */
export interface Storage {
  readonly dialect: Dialect;
  readonly users: UsersRepository;
  readonly tokens: TokensRepository;
  readonly discussions: DiscussionsRepository;
  readonly memories: MemoriesRepository;
  readonly queries: QueriesRepository;
  readonly connections: ConnectionsRepository;
  readonly pairingCodes: PairingCodesRepository;
  readonly oauth: OAuthRecordsRepository;
  readonly integrationActivity: IntegrationActivityRepository;
  readonly webSessions: WebSessionsRepository;
  readonly signInLinks: SignInLinksRepository;
  readonly signInFailures: SignInFailuresRepository;
  /** Resolves when the database answers a trivial query, rejects when it does not (health checks). */
  ping(): Promise<void>;
  /** False when this code has migrations the database lacks (readiness checks, `migrate --check`). */
  schemaIsCurrent(): Promise<boolean>;
  close(): Promise<void>;
}

export interface OpenStorageOptions {
  /**
   * `run`: apply pending migrations (the self-hosted server at start-up, the hosted ops command).
   * `require-current`: refuse to open a database that has pending migrations (the hosted API at start-up).
   */
  migrations: 'run' | 'require-current';
}

/** Opens the database, brings or checks its schema, and hands out the repositories. */
export async function openStorage(config: DatabaseConfig, options: OpenStorageOptions): Promise<Storage> {
  return (await openDatabase(config, options)).storage;
}

/** `openStorage`, with the data source behind it for this lib's test helpers only (not exported by the package). */
export async function openDatabase(
  config: DatabaseConfig,
  options: OpenStorageOptions,
): Promise<{ storage: Storage; dataSource: DataSource }> {
  const dataSource = new DataSource(dataSourceOptions(config));
  try {
    await dataSource.initialize();
  } catch (error) {
    throw StorageError.unavailable(describeConnectError(config, error));
  }
  try {
    if (options.migrations === 'run') {
      if (config.dialect === 'postgres' && config.schema) {
        await dataSource.query(`CREATE SCHEMA IF NOT EXISTS "${config.schema}"`);
      }
      await dataSource.runMigrations({ transaction: 'each' });
    } else if (await hasPendingMigrations(dataSource)) {
      throw StorageError.unavailable(
        'the database schema is not up to date; run the migrate command first (assistant-hosted-ops migrate)',
      );
    }
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  const sql = new Sql(dataSource, config.dialect);
  const storage: Storage = {
    dialect: config.dialect,
    users: new UsersRepository(dataSource, sql),
    tokens: new TokensRepository(dataSource, sql),
    discussions: new DiscussionsRepository(dataSource, sql),
    memories: new MemoriesRepository(dataSource, sql),
    queries: new QueriesRepository(sql),
    connections: new ConnectionsRepository(sql),
    pairingCodes: new PairingCodesRepository(sql),
    oauth: new OAuthRecordsRepository(sql),
    integrationActivity: new IntegrationActivityRepository(sql),
    webSessions: new WebSessionsRepository(sql),
    signInLinks: new SignInLinksRepository(sql),
    signInFailures: new SignInFailuresRepository(sql),
    ping: async () => {
      await dataSource.query('SELECT 1');
    },
    schemaIsCurrent: async () => !(await hasPendingMigrations(dataSource)),
    close: async () => {
      if (dataSource.isInitialized) await dataSource.destroy();
    },
  };
  return { storage, dataSource };
}

/** A database without our schema at all (no migrations table, or no such schema) has every migration pending. */
async function hasPendingMigrations(dataSource: DataSource): Promise<boolean> {
  try {
    return await dataSource.showMigrations();
  } catch {
    return true;
  }
}

function describeConnectError(config: DatabaseConfig, error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  if (config.dialect === 'sqlite') return `cannot open the SQLite database ${config.file}: ${reason}`;
  const url = new URL(config.url);
  return `cannot connect to PostgreSQL at ${url.hostname}:${url.port || 5432}${url.pathname}: ${reason}`;
}
