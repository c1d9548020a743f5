import { join } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import { UserEntity } from './entities/user.entity';
import { TokenEntity } from './entities/token.entity';
import { DiscussionEntity } from './entities/discussion.entity';
import { MessageEntity } from './entities/message.entity';
import { MemoryEntity } from './entities/memory.entity';
import { QueryEntity } from './entities/query.entity';
import { PairingCodeEntity } from './entities/pairing-code.entity';
import { InitialSchemaSqlite1732233600000 } from './migrations/sqlite/1732233600000-initial-schema';
import { InitialSchemaPostgres1732233600000 } from './migrations/postgres/1732233600000-initial-schema';
import { QueryLogSqlite1795391090949 } from './migrations/sqlite/1795391090949-query-log';
import { QueryLogPostgres1795391090949 } from './migrations/postgres/1795391090949-query-log';
import { ConnectionsSqlite1795500000000 } from './migrations/sqlite/1795500000000-connections';
import { ConnectionsPostgres1795500000000 } from './migrations/postgres/1795500000000-connections';
import { AutoApprovedToolsSqlite1795600000000 } from './migrations/sqlite/1795600000000-auto-approved-tools';
import { AutoApprovedToolsPostgres1795600000000 } from './migrations/postgres/1795600000000-auto-approved-tools';
import { PairingSqlite1795700000000 } from './migrations/sqlite/1795700000000-pairing';
import { PairingPostgres1795700000000 } from './migrations/postgres/1795700000000-pairing';
import { WebSessionsSqlite1795750000000 } from './migrations/sqlite/1795750000000-web-sessions';
import { WebSessionsPostgres1795750000000 } from './migrations/postgres/1795750000000-web-sessions';
import { OAuthSqlite1795800000000 } from './migrations/sqlite/1795800000000-oauth';
import { OAuthPostgres1795800000000 } from './migrations/postgres/1795800000000-oauth';
import { IntegrationActivitySqlite1795850000000 } from './migrations/sqlite/1795850000000-integration-activity';
import { IntegrationActivityPostgres1795850000000 } from './migrations/postgres/1795850000000-integration-activity';
import { MemoriesOwnerSearchPostgres1795910000000 } from './migrations/postgres/1795910000000-memories-owner-search';
import { TokenLineageSqlite1795980000000 } from './migrations/sqlite/1795980000000-token-lineage';
import { TokenLineagePostgres1795980000000 } from './migrations/postgres/1795980000000-token-lineage';
import { QueryOwnerSqlite1795990000000 } from './migrations/sqlite/1795990000000-query-owner';
import { QueryOwnerPostgres1795990000000 } from './migrations/postgres/1795990000000-query-owner';
import { ConnectionNamesSqlite1796000000000 } from './migrations/sqlite/1796000000000-connection-names';
import { ConnectionNamesPostgres1796000000000 } from './migrations/postgres/1796000000000-connection-names';
import { QueryEventsOneRowSqlite1796100000000 } from './migrations/sqlite/1796100000000-query-events-one-row';
import { QueryEventsOneRowPostgres1796100000000 } from './migrations/postgres/1796100000000-query-events-one-row';
import { QueryRunnersSqlite1796200000000 } from './migrations/sqlite/1796200000000-query-runners';
import { QueryRunnersPostgres1796200000000 } from './migrations/postgres/1796200000000-query-runners';
import { sqliteDriver } from './sqlite-driver';

export type DatabaseConfig =
  | { dialect: 'sqlite'; file: string }
  /** `schema` isolates one installation (or one test run) inside a shared database. */
  | { dialect: 'postgres'; url: string; schema?: string };

export type Dialect = DatabaseConfig['dialect'];

export const ENTITIES = [
  UserEntity,
  TokenEntity,
  DiscussionEntity,
  MessageEntity,
  MemoryEntity,
  QueryEntity,
  PairingCodeEntity,
];

const MIGRATIONS = {
  sqlite: [
    InitialSchemaSqlite1732233600000,
    QueryLogSqlite1795391090949,
    ConnectionsSqlite1795500000000,
    AutoApprovedToolsSqlite1795600000000,
    PairingSqlite1795700000000,
    WebSessionsSqlite1795750000000,
    OAuthSqlite1795800000000,
    IntegrationActivitySqlite1795850000000,
    TokenLineageSqlite1795980000000,
    QueryOwnerSqlite1795990000000,
    ConnectionNamesSqlite1796000000000,
    QueryEventsOneRowSqlite1796100000000,
    QueryRunnersSqlite1796200000000,
  ],
  postgres: [
    InitialSchemaPostgres1732233600000,
    QueryLogPostgres1795391090949,
    ConnectionsPostgres1795500000000,
    AutoApprovedToolsPostgres1795600000000,
    PairingPostgres1795700000000,
    WebSessionsPostgres1795750000000,
    OAuthPostgres1795800000000,
    IntegrationActivityPostgres1795850000000,
    MemoriesOwnerSearchPostgres1795910000000,
    TokenLineagePostgres1795980000000,
    QueryOwnerPostgres1795990000000,
    ConnectionNamesPostgres1796000000000,
    QueryEventsOneRowPostgres1796100000000,
    QueryRunnersPostgres1796200000000,
  ],
};

/** The embedded database's file inside a data directory. */
export function sqliteFileIn(dataDir: string): string {
  return join(dataDir, 'assistant.sqlite');
}

/**
 * Reads a `postgres://` URL; a `?schema=` parameter (not understood by libpq) is taken out and becomes the
 * schema this installation lives in.
 */
export function postgresConfigFromUrl(rawUrl: string): DatabaseConfig {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new Error('the database URL is not a URL; expected postgres://user@host:5432/database');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new Error(`the database URL must start with postgres:// (got ${url.protocol}//)`);
  }
  const schema = url.searchParams.get('schema') ?? undefined;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error('the ?schema= of the database URL must be a lower-case SQL identifier');
  }
  url.searchParams.delete('schema');
  return { dialect: 'postgres', url: url.toString(), schema };
}

/** The one place where the dialect is chosen (SQLite by default, PostgreSQL when given a URL). */
export function dataSourceOptions(config: DatabaseConfig): DataSourceOptions {
  const common = { entities: ENTITIES, synchronize: false, migrationsRun: false, logging: false } as const;
  if (config.dialect === 'sqlite') {
    return {
      ...common,
      type: 'better-sqlite3',
      driver: sqliteDriver(),
      database: config.file,
      migrations: MIGRATIONS.sqlite,
      // WAL lets readers run beside the writer; the busy timeout turns short lock waits into waits, not errors.
      // 16 MB of page cache, as better-sqlite3's build sets it: node:sqlite keeps SQLite's default, 2 MB.
      prepareDatabase: (db: { pragma(sql: string): unknown }) => {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        db.pragma('foreign_keys = ON');
        db.pragma('busy_timeout = 5000');
        db.pragma('cache_size = -16000');
      },
    };
  }
  return {
    ...common,
    type: 'postgres',
    url: config.url,
    migrations: MIGRATIONS.postgres,
    extra: {
      max: 10,
      // pg's default closes a connection idle for 10 s, so a service quiet for a few seconds and then busy again
      // reopens its connections, and each new PostgreSQL backend costs milliseconds of CPU (fork, authentication,
      // the catalog caches warming up, the named statements prepared again) on the query that waits for it. Five
      // minutes keeps them across the lulls of a live service and still gives them back to the database when an
      // instance has been idle for a while (at most `max` connections per instance either way).
      idleTimeoutMillis: 300_000,
      connectionTimeoutMillis: 5_000,
      ...(config.schema ? { options: `-c search_path=${config.schema}` } : {}),
    },
  };
}
