import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { openDatabase, type Storage } from './storage';
import { postgresConfigFromUrl, type DatabaseConfig, type Dialect } from './data-source-options';
import { onNodeSqlite } from './sqlite-driver';

/** The SQLite driver the server opens its file with (Node's own from 22.16), for a test that looks at that file. */
export { sqliteDriver } from './sqlite-driver';

export const TEST_DATABASE_URL =
  process.env.ASSISTANT_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestStorage {
  storage: Storage;
  /** Plain SQL on the same database, for a test to look behind the repositories (in the dialect's own placeholders). */
  query(sql: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
  dispose(): Promise<void>;
}

/** A migrated, empty database of either dialect for a test, and the way to throw it away afterwards. */
export async function openTestStorage(dialect: Dialect): Promise<TestStorage> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'assistant-storage-'));
    const { storage, dataSource } = await openDatabase(
      { dialect: 'sqlite', file: join(dir, 'test.sqlite') },
      { migrations: 'run' },
    );
    return {
      storage,
      query: (sql, params) => dataSource.query(sql, params),
      dispose: async () => {
        await storage.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const { storage, dataSource } = await openDatabase(
    postgresConfigFromUrl(`${TEST_DATABASE_URL}?schema=${schema}`),
    { migrations: 'run' },
  );
  return {
    storage,
    query: (sql, params) => dataSource.query(sql, params),
    dispose: async () => {
      await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
      await storage.close();
    },
  };
}

/**
 * A configuration for a fresh schema of the test PostgreSQL, for code that opens its database itself (a whole
 * server in a test); the schema is made when it is opened, and `dropTestSchema` throws it away afterwards.
 */
export function testPostgresConfig(): { config: DatabaseConfig; schema: string } {
  const schema = `test_${randomBytes(6).toString('hex')}`;
  return { config: postgresConfigFromUrl(`${TEST_DATABASE_URL}?schema=${schema}`), schema };
}

/** Drops a schema of the test PostgreSQL made through `testPostgresConfig`. */
export async function dropTestSchema(schema: string): Promise<void> {
  const dataSource = new DataSource({ type: 'postgres', url: TEST_DATABASE_URL });
  await dataSource.initialize();
  try {
    await dataSource.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await dataSource.destroy();
  }
}

/**
 * JavaScript, for a script that a test runs in another Node process (`node --disable-warning=ExperimentalWarning
 * -e`), that gives the SQLite class this Node's driver stands on: node:sqlite's DatabaseSync from Node 22,
 * better-sqlite3 (@assistant/sqlite-node20) on Node 20. Such a script cannot load this package's TypeScript, so it
 * may use only what both have: `new Database(file, { timeout })`, `exec`, `prepare(sql).run/get`, `close`, and an
 * error's `message`.
 */
export function sqliteOfAnotherProcess(): string {
  return onNodeSqlite()
    ? "require('node:sqlite').DatabaseSync"
    : `require(${JSON.stringify(require.resolve('@assistant/sqlite-node20'))})`;
}

export { watchRowWrites, type RowWrites, type RowWriteCounts } from './row-writes';
