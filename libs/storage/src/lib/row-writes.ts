import { DataSource } from 'typeorm';
import type { DatabaseConfig } from './data-source-options';
import { sqliteDriver } from './sqlite-driver';

/** Rows written since the watch started or was last reset, by table. */
export type RowWriteCounts = Record<string, number>;

/** Counts every row that a database's tables get written (inserted, updated or deleted), for tests. */
export interface RowWrites {
  counts(): Promise<RowWriteCounts>;
  reset(): Promise<void>;
  /** Runs plain SQL on the watched database (in its own dialect), e.g. a trigger that makes a write fail. */
  run(sql: string): Promise<void>;
  close(): Promise<void>;
}

const LOG = 'test_row_writes';

/**
 * Installs a trigger on every table of a test database that notes each row written, on a connection of its own:
 * whatever writes (any process, any connection, any statement), every row is counted, which the statistics of
 * neither database tell exactly (PostgreSQL's arrive a while later). Virtual tables (full-text indexes) are left
 * out: their rows follow those of the tables they index.
 */
export async function watchRowWrites(config: DatabaseConfig): Promise<RowWrites> {
  return config.dialect === 'sqlite' ? watchSqlite(config.file) : watchPostgres(config.url, config.schema);
}

function watchSqlite(file: string): RowWrites {
  const Database = sqliteDriver();
  const db = new Database(file);
  db.pragma('busy_timeout = 5000');
  db.exec(`CREATE TABLE IF NOT EXISTS ${LOG} (tbl text NOT NULL)`);
  const tables = db
    .prepare(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT IN ('migrations', '${LOG}') AND sql NOT LIKE 'CREATE VIRTUAL%'`,
    )
    .all() as Array<{ name: string }>;
  for (const { name } of tables) {
    for (const op of ['INSERT', 'UPDATE', 'DELETE']) {
      try {
        db.exec(
          `CREATE TRIGGER IF NOT EXISTS ${LOG}_${op.toLowerCase()}_${name} AFTER ${op} ON "${name}" BEGIN INSERT INTO ${LOG} (tbl) VALUES ('${name}'); END`,
        );
      } catch {
        // A full-text index's own tables take no triggers; they are written with the table they index.
      }
    }
  }
  return {
    counts: async () => countsOf(db.prepare(`SELECT tbl, COUNT(*) AS n FROM ${LOG} GROUP BY tbl`).all()),
    reset: async () => void db.exec(`DELETE FROM ${LOG}`),
    run: async (sql) => void db.exec(sql),
    close: async () => void db.close(),
  };
}

async function watchPostgres(url: string, schema = 'public'): Promise<RowWrites> {
  const dataSource = new DataSource({ type: 'postgres', url });
  await dataSource.initialize();
  const s = `"${schema}"`;
  await dataSource.query(`CREATE TABLE IF NOT EXISTS ${s}.${LOG} (tbl text NOT NULL)`);
  await dataSource.query(`CREATE OR REPLACE FUNCTION ${s}.${LOG}_note() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN INSERT INTO ${s}.${LOG} (tbl) VALUES (TG_TABLE_NAME); RETURN NULL; END $$`);
  const tables = (await dataSource.query(
    `SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename NOT IN ('migrations', '${LOG}')`,
    [schema],
  )) as Array<{ tablename: string }>;
  for (const { tablename } of tables) {
    await dataSource.query(`CREATE OR REPLACE TRIGGER ${LOG} AFTER INSERT OR UPDATE OR DELETE ON ${s}."${tablename}"
      FOR EACH ROW EXECUTE FUNCTION ${s}.${LOG}_note()`);
  }
  return {
    counts: async () =>
      countsOf(await dataSource.query(`SELECT tbl, COUNT(*)::integer AS n FROM ${s}.${LOG} GROUP BY tbl`)),
    reset: async () => void (await dataSource.query(`DELETE FROM ${s}.${LOG}`)),
    run: async (sql) => void (await dataSource.query(`SET search_path TO ${s}; ${sql}`)),
    close: () => dataSource.destroy(),
  };
}

function countsOf(rows: unknown[]): RowWriteCounts {
  return Object.fromEntries(
    (rows as Array<{ tbl: string; n: number }>).map((row) => [row.tbl, Number(row.n)]),
  );
}
