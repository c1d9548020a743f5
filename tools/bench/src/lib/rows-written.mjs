// What an answered query costs the database (issue 23: "rows written per answered query: a constant, whatever the
// answer's length"; "bytes stored per answer"), read from the database itself, never from our server's say-so:
//   - rows written: a trigger on every table of the database notes each row inserted, updated or deleted, into a
//     table of the bench's own, whichever connection or statement writes it (SQLite's changes() and PostgreSQL's
//     statistics are per connection or arrive late). Full-text indexes' own tables take no trigger: their rows
//     follow those of the table they index.
//   - rows and bytes stored, per table: COUNT(*) and the bytes of the rows themselves; SQLite: the payload of every
//     b-tree of the table and its indexes (the dbstat virtual table) and the pages they fill; PostgreSQL: the rows'
//     pg_column_size and pg_total_relation_size (pages, TOAST and indexes).
// The bench's own table and triggers are left out of every figure.
import { pg } from './postgres.mjs';
import { sleep } from './processes.mjs';
import { sqliteDriver } from './server.mjs';

/** The bench's table of row writes; never one of ours. */
const LOG = 'bench_row_writes';
const OPERATIONS = ['INSERT', 'UPDATE', 'DELETE'];

/** Installs the triggers on our server's SQLite file; resolves a watch (see watchDatabase). */
function watchSqlite(file) {
  const Database = sqliteDriver();
  const db = new Database(file);
  db.pragma('busy_timeout = 5000');
  db.exec(`CREATE TABLE IF NOT EXISTS ${LOG} (tbl text NOT NULL, op text NOT NULL)`);
  const tables = db
    .prepare(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '${LOG}'
       AND sql NOT LIKE 'CREATE VIRTUAL%'`,
    )
    .pluck()
    .all();
  for (const table of tables) {
    for (const op of OPERATIONS) {
      try {
        db.exec(
          `CREATE TRIGGER IF NOT EXISTS ${LOG}_${op.toLowerCase()}_${table} AFTER ${op} ON "${table}"
           BEGIN INSERT INTO ${LOG} (tbl, op) VALUES ('${table}', '${op}'); END`,
        );
      } catch {
        // A full-text index's shadow tables refuse triggers; they are written with the table they index.
      }
    }
  }
  const writes = db.prepare(`SELECT tbl, op, COUNT(*) AS n FROM ${LOG} GROUP BY tbl, op`);
  const stored = db.prepare(
    `SELECT m.tbl_name AS tbl, SUM(d.payload) AS bytes, SUM(d.pgsize) AS pages
     FROM dbstat d JOIN sqlite_master m ON m.name = d.name WHERE m.tbl_name <> '${LOG}' GROUP BY m.tbl_name`,
  );
  const counts = Object.fromEntries(
    tables.map((table) => [table, db.prepare(`SELECT COUNT(*) FROM "${table}"`).pluck()]),
  );
  return {
    writes: async () => writes.all(),
    reset: async () => void db.exec(`DELETE FROM ${LOG}`),
    stored: async () =>
      Object.fromEntries(
        stored
          .all()
          .filter(({ tbl }) => tbl in counts)
          .map(({ tbl, bytes, pages }) => [tbl, { rows: counts[tbl].get(), bytes, pages }]),
      ),
    close: async () => void db.close(),
  };
}

/** Installs the triggers in the schema of `url` (its ?schema=); resolves a watch (see watchDatabase). */
async function watchPostgres(url) {
  const schema = new URL(url).searchParams.get('schema') ?? 'public';
  const plain = new URL(url);
  plain.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: plain.toString() });
  await client.connect();
  const s = `"${schema}"`;
  await client.query(`CREATE TABLE IF NOT EXISTS ${s}.${LOG} (tbl text NOT NULL, op text NOT NULL)`);
  await client.query(`CREATE OR REPLACE FUNCTION ${s}.${LOG}_note() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN INSERT INTO ${s}.${LOG} (tbl, op) VALUES (TG_TABLE_NAME, TG_OP); RETURN NULL; END $$`);
  const { rows } = await client.query(
    `SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename <> '${LOG}'`,
    [schema],
  );
  const tables = rows.map((r) => r.tablename);
  for (const table of tables)
    await client.query(`CREATE OR REPLACE TRIGGER ${LOG} AFTER INSERT OR UPDATE OR DELETE ON ${s}."${table}"
      FOR EACH ROW EXECUTE FUNCTION ${s}.${LOG}_note()`);
  return {
    writes: async () =>
      (await client.query(`SELECT tbl, op, COUNT(*)::integer AS n FROM ${s}.${LOG} GROUP BY tbl, op`)).rows,
    reset: async () => void (await client.query(`DELETE FROM ${s}.${LOG}`)),
    stored: async () => {
      const result = {};
      for (const table of tables) {
        const {
          rows: [r],
        } = await client.query(
          `SELECT COUNT(*)::integer AS rows, COALESCE(SUM(pg_column_size(t.*)), 0)::bigint AS bytes,
           pg_total_relation_size('${s}."${table}"') AS pages FROM ${s}."${table}" t`,
        );
        result[table] = { rows: r.rows, bytes: Number(r.bytes), pages: Number(r.pages) };
      }
      return result;
    },
    close: () => client.end(),
  };
}

/**
 * Watches the database of one of our servers: `{ dialect: 'sqlite', file }` or `{ dialect: 'postgres', url }`.
 * Resolves { writes() [{ tbl, op, n }] since the last reset(), reset(), stored() { [table]: { rows, bytes, pages } },
 * close() }.
 */
export function watchDatabase(database) {
  return database.dialect === 'sqlite' ? watchSqlite(database.file) : watchPostgres(database.url);
}

/** The rows written, by table ({ messages: 2, … }), and their total. */
export function writesByTable(writes) {
  const byTable = {};
  for (const { tbl, n } of writes) byTable[tbl] = (byTable[tbl] ?? 0) + n;
  return byTable;
}

/** What `after` holds more than `before`, by table: { [table]: { rows, bytes, pages } } (tables unchanged left out). */
export function storedDifference(before, after) {
  const added = {};
  for (const [table, now] of Object.entries(after)) {
    const then = before[table] ?? { rows: 0, bytes: 0, pages: 0 };
    const delta = {
      rows: now.rows - then.rows,
      bytes: now.bytes - then.bytes,
      pages: now.pages - then.pages,
    };
    if (delta.rows || delta.bytes || delta.pages) added[table] = delta;
  }
  return added;
}

/**
 * Runs `ask()` (one query, read to its end) on a watched database, then waits until no row has been written for
 * `quietMs` (what our server writes after the stream's end counts too). Resolves { result (ask's), writes
 * [{ tbl, op, n }], added (storedDifference) }.
 */
export async function writesOf(watch, ask, { quietMs = 300, timeoutMs = 10_000 } = {}) {
  await watch.reset();
  const before = await watch.stored();
  const result = await ask();
  const total = async () => (await watch.writes()).reduce((sum, { n }) => sum + n, 0);
  const deadline = Date.now() + timeoutMs;
  let last = await total();
  for (;;) {
    await sleep(quietMs);
    const now = await total();
    if (now === last || Date.now() > deadline) break;
    last = now;
  }
  return { result, writes: await watch.writes(), added: storedDifference(before, await watch.stored()) };
}
