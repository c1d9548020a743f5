import { NODE_SQLITE_MINIMUM, nodeSqliteDriver } from './node-sqlite-driver';

/**
 * The part of better-sqlite3's API that TypeORM's `better-sqlite3` driver and this package use, and all that either
 * SQLite driver offers here (decision record 0012): better-sqlite3 12 on Node 20 is it, and on Node 22 and later
 * node-sqlite-driver.ts gives it over Node's own SQLite.
 */
export interface SqliteStatement {
  /** Whether the statement returns rows (it has result columns: a SELECT, a PRAGMA that reads, a RETURNING). */
  readonly reader: boolean;
  /**
   * Each runs the statement with its parameters: values for `?` in order, and one object for named ones (`$1`,
   * `:name`, `@name`, `$name`, given without the prefix: `{ 1: … }`). A value is a string, number, bigint, Buffer
   * or null; undefined is bound as NULL; an array gives its values in turn; a boolean, a Date or any other object is
   * a TypeError.
   */
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  /** The first row (a plain object, BLOBs as Buffers), or undefined. */
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

export interface SqliteDatabase {
  /** Whether a transaction is open on this connection (`transaction` then opens a savepoint). */
  readonly inTransaction: boolean;
  prepare(sql: string): SqliteStatement;
  /** Runs one or more statements, discarding their rows. */
  exec(sql: string): this;
  /** `PRAGMA <source>`: its rows, or with `simple` the first column of its first row. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /**
   * `fn` wrapped in a transaction: BEGIN … COMMIT, or a savepoint when one is open already; a throw rolls back
   * what `fn` did and is thrown again.
   */
  transaction<Args extends unknown[], Result>(fn: (...args: Args) => Result): (...args: Args) => Result;
  close(): this;
}

export interface SqliteOpenOptions {
  readonly?: boolean;
  fileMustExist?: boolean;
  /** The busy timeout in ms: how long a statement waits for another connection's lock (default 5000). */
  timeout?: number;
}

export type SqliteDriver = new (file: string, options?: SqliteOpenOptions) => SqliteDatabase;

/** The first Node major whose own SQLite (node:sqlite) is the driver; before it, Node 20, better-sqlite3 12. */
const NODE_SQLITE_FROM_MAJOR = 22;

let driver: SqliteDriver | undefined;

/** Whether this Node's SQLite driver is Node's own (node:sqlite) rather than better-sqlite3. */
export function onNodeSqlite(): boolean {
  return Number(process.versions.node.split('.')[0]) >= NODE_SQLITE_FROM_MAJOR;
}

/**
 * The SQLite driver for this Node, the one place it is chosen: Node's own SQLite from Node 22 (nothing to install
 * or compile), better-sqlite3 12 from `@assistant/sqlite-node20` on Node 20, an optional dependency that npm
 * installs on Node 20 only (its `engines`). Everything that opens an SQLite database takes it from here: TypeORM's
 * data source (`driver: sqliteDriver()`), the data-directory lock, the row writes, the snapshot of `assistant
 * backup`.
 */
export function sqliteDriver(): SqliteDriver {
  driver ??= onNodeSqlite() ? nodeSqliteDriver() : node20Driver();
  return driver;
}

function node20Driver(): SqliteDriver {
  try {
    // By its literal name, so that a bundle (the CLI's) leaves exactly this package to run time.
    return require('@assistant/sqlite-node20') as SqliteDriver;
  } catch (error) {
    const missing =
      (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' &&
      String((error as Error).message).includes("'@assistant/sqlite-node20'");
    if (!missing) throw error;
    throw new Error(
      `the SQLite database needs @assistant/sqlite-node20 on Node ${process.versions.node}, an optional ` +
        'dependency that this install left out: install again without --omit=optional, or use Node ' +
        `${NODE_SQLITE_MINIMUM} or later, which has SQLite built in`,
      { cause: error },
    );
  }
}
