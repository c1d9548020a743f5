import { existsSync } from 'node:fs';
import { sqliteCodeName } from './sqlite-result-codes';
import type { SqliteDatabase, SqliteDriver, SqliteOpenOptions, SqliteStatement } from './sqlite-driver';

/**
 * The first Node with all of node:sqlite that this driver uses: `StatementSync.columns()` (whether a statement
 * returns rows), `DatabaseSync.isTransaction` (savepoints), the `timeout` option, and FTS5 (memory recall), all
 * new in 22.16.0 (Node 24 has them from 24.0.0).
 */
export const NODE_SQLITE_MINIMUM = '22.16';

/** better-sqlite3's busy timeout when none is given: a write waits up to 5 s for another connection's lock. */
const DEFAULT_TIMEOUT_MS = 5_000;

/** The part of node:sqlite used here (@types/node of the workspace's Node 20 does not describe it). */
interface NodeStatement {
  readonly sourceSQL: string;
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: unknown[]): Row | undefined;
  all(...params: unknown[]): Row[];
  columns(): unknown[];
  setAllowUnknownNamedParameters(enabled: boolean): void;
}

interface NodeDatabase {
  readonly isOpen: boolean;
  readonly isTransaction: boolean;
  prepare(sql: string): NodeStatement;
  exec(sql: string): void;
  close(): void;
}

interface NodeSqlite {
  DatabaseSync: new (path: string, options: { readOnly: boolean; timeout: number }) => NodeDatabase;
  StatementSync: { prototype: Partial<NodeStatement> };
}

type Row = Record<string, unknown>;

let sqlite: NodeSqlite | undefined;

/** better-sqlite3's API over Node's own SQLite (see SqliteDatabase), for Node 22.16 and later. */
export function nodeSqliteDriver(): SqliteDriver {
  sqlite ??= loadNodeSqlite();
  return NodeSqliteDatabase;
}

/**
 * node:sqlite, without the "SQLite is an experimental feature" warning that Node 22 (and 24 before 24.15) prints
 * when it is first loaded: a server would print it on every start. Only that warning is dropped.
 */
function loadNodeSqlite(): NodeSqlite {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    const message = typeof warning === 'string' ? warning : warning.message;
    if (type === 'ExperimentalWarning' && message.startsWith('SQLite ')) return;
    return (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  let loaded: NodeSqlite;
  try {
    loaded = require('node:sqlite') as NodeSqlite;
  } catch (error) {
    throw tooOld(error);
  } finally {
    process.emitWarning = emitWarning;
  }
  if (typeof loaded.StatementSync?.prototype.columns !== 'function') throw tooOld();
  return loaded;
}

function tooOld(cause?: unknown): Error {
  return new Error(
    `the SQLite database needs Node ${NODE_SQLITE_MINIMUM} or later (Node's own SQLite); this is Node ` +
      `${process.versions.node}`,
    { cause },
  );
}

/** An error of SQLite, as better-sqlite3 throws it: SQLite's message, and its result code's name in `code`. */
class SqliteError extends Error {
  override readonly name = 'SqliteError';

  constructor(
    message: string,
    readonly code: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** node:sqlite's error for a failed SQLite call (`ERR_SQLITE_ERROR`, the number in `errcode`) as a SqliteError. */
function fromNodeSqlite(error: unknown): unknown {
  const failed = error as { code?: unknown; errcode?: unknown; message?: unknown } | null;
  if (failed?.code !== 'ERR_SQLITE_ERROR' || typeof failed.errcode !== 'number') return error;
  return new SqliteError(String(failed.message), sqliteCodeName(failed.errcode), { cause: error });
}

/** What may follow a statement in a prepared text: blanks, semicolons and comments, nothing that would run. */
const NOTHING_MORE = /^(?:\s|;|--[^\n]*(?:\n|$)|\/\*[\s\S]*?(?:\*\/|$))*$/;

class NodeSqliteDatabase implements SqliteDatabase {
  private readonly db: NodeDatabase;
  private steps: TransactionSteps | undefined;

  constructor(file: string, options: SqliteOpenOptions = {}) {
    if (options.fileMustExist && file !== ':memory:' && !existsSync(file)) {
      throw new SqliteError('unable to open database file', 'SQLITE_CANTOPEN');
    }
    try {
      this.db = new sqlite!.DatabaseSync(file, {
        readOnly: options.readonly === true,
        timeout: options.timeout ?? DEFAULT_TIMEOUT_MS,
      });
    } catch (error) {
      throw fromNodeSqlite(error);
    }
  }

  get inTransaction(): boolean {
    return this.db.isTransaction;
  }

  prepare(sql: string): SqliteStatement {
    let statement: NodeStatement;
    try {
      statement = this.db.prepare(sql);
    } catch (error) {
      throw fromNodeSqlite(error);
    }
    // node:sqlite prepares the first statement of a text and drops the rest without a word; better-sqlite3 refuses.
    const source = statement.sourceSQL;
    if (sql.startsWith(source) && !NOTHING_MORE.test(sql.slice(source.length))) {
      throw new RangeError('The supplied SQL string contains more than one statement');
    }
    // better-sqlite3 ignores the keys of a parameters object that the statement does not name.
    statement.setAllowUnknownNamedParameters(true);
    return new NodeSqliteStatement(statement);
  }

  exec(sql: string): this {
    try {
      this.db.exec(sql);
    } catch (error) {
      throw fromNodeSqlite(error);
    }
    return this;
  }

  pragma(source: string, options: { simple?: boolean } = {}): unknown {
    const statement = this.prepare(`PRAGMA ${source}`);
    if (!options.simple) return statement.all();
    const row = statement.get() as Row | undefined;
    return row === undefined ? undefined : Object.values(row)[0];
  }

  /** better-sqlite3's `transaction` (its default, deferred kind), statement for statement. */
  transaction<Args extends unknown[], Result>(fn: (...args: Args) => Result): (...args: Args) => Result {
    if (typeof fn !== 'function') throw new TypeError('Expected first argument to be a function');
    return (...args: Args): Result => {
      const steps = (this.steps ??= transactionSteps(this));
      const nested = this.inTransaction;
      (nested ? steps.savepoint : steps.begin).run();
      try {
        const result = fn(...args);
        if (typeof (result as { then?: unknown } | null)?.then === 'function') {
          throw new TypeError('Transaction function cannot return a promise');
        }
        (nested ? steps.release : steps.commit).run();
        return result;
      } catch (error) {
        // A failed COMMIT (a busy lock) leaves the transaction open: undone here too.
        if (this.inTransaction) {
          if (nested) {
            steps.rollbackTo.run();
            steps.release.run();
          } else steps.rollback.run();
        }
        throw error;
      }
    };
  }

  close(): this {
    if (this.db.isOpen) this.db.close();
    return this;
  }
}

interface TransactionSteps {
  begin: SqliteStatement;
  commit: SqliteStatement;
  rollback: SqliteStatement;
  savepoint: SqliteStatement;
  release: SqliteStatement;
  rollbackTo: SqliteStatement;
}

function transactionSteps(database: SqliteDatabase): TransactionSteps {
  const savepoint = '"assistant transaction"';
  return {
    begin: database.prepare('BEGIN'),
    commit: database.prepare('COMMIT'),
    rollback: database.prepare('ROLLBACK'),
    savepoint: database.prepare(`SAVEPOINT ${savepoint}`),
    release: database.prepare(`RELEASE ${savepoint}`),
    rollbackTo: database.prepare(`ROLLBACK TO ${savepoint}`),
  };
}

class NodeSqliteStatement implements SqliteStatement {
  readonly reader: boolean;

  constructor(private readonly statement: NodeStatement) {
    this.reader = statement.columns().length > 0;
  }

  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint } {
    try {
      return this.statement.run(...bindable(params)) as { changes: number; lastInsertRowid: number | bigint };
    } catch (error) {
      throw fromNodeSqlite(error);
    }
  }

  get(...params: unknown[]): unknown {
    let row: Row | undefined;
    try {
      row = this.statement.get(...bindable(params));
    } catch (error) {
      throw fromNodeSqlite(error);
    }
    return row === undefined ? undefined : plainRow(row, Object.keys(row));
  }

  all(...params: unknown[]): unknown[] {
    let rows: Row[];
    try {
      rows = this.statement.all(...bindable(params));
    } catch (error) {
      throw fromNodeSqlite(error);
    }
    return plainRows(rows);
  }
}

/**
 * Rows as better-sqlite3 gives them: plain objects (node:sqlite's have no prototype, so `row.hasOwnProperty` or
 * `String(row)` would throw), with BLOBs as Buffers (node:sqlite gives Uint8Arrays; the Buffer shares their memory).
 * The rows of one result have the same columns: their names are read once, from the first.
 */
function plainRows(rows: Row[]): Row[] {
  if (rows.length === 0) return rows;
  const columns = Object.keys(rows[0]);
  for (let i = 0; i < rows.length; i++) rows[i] = plainRow(rows[i], columns);
  return rows;
}

/** One row of `plainRows`, whose `columns` are given (`get`'s one row needs no array around it). */
function plainRow(row: Row, columns: readonly string[]): Row {
  const plain: Row = {};
  for (const column of columns) {
    const value = row[column];
    // node:sqlite gives null, numbers, bigints, strings and Uint8Arrays: an object is a BLOB.
    plain[column] = typeof value === 'object' && value !== null ? blob(value as Uint8Array) : value;
  }
  return plain;
}

function blob(value: Uint8Array): Buffer {
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

const NOT_BINDABLE = 'SQLite3 can only bind numbers, strings, bigints, buffers, and null';

function isScalar(value: unknown): boolean {
  return (
    value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint'
  );
}

/**
 * Parameters as better-sqlite3 binds them, for node:sqlite: undefined is NULL (node:sqlite refuses it); a boolean
 * or a Date is refused (node:sqlite binds a boolean from Node 24, and takes a Date in first place for an empty set
 * of named parameters, binding NULL); an array gives its values in turn; the object of named parameters may come
 * anywhere (node:sqlite wants it first).
 */
function bindable(params: unknown[]): unknown[] {
  for (const value of params) if (!isScalar(value)) return converted(params);
  return params;
}

function converted(params: unknown[]): unknown[] {
  let named: object | undefined;
  const anonymous: unknown[] = [];
  const add = (value: unknown, inArray: boolean): void => {
    if (value === undefined) anonymous.push(null);
    else if (isScalar(value) || ArrayBuffer.isView(value)) anonymous.push(value);
    else if (Array.isArray(value) && !inArray) for (const item of value) add(item, true);
    else if (typeof value === 'object' && value !== null && isPlainObject(value) && !inArray) {
      if (named) throw new TypeError('You cannot specify named parameters in two different objects');
      named = value;
    } else throw new TypeError(NOT_BINDABLE);
  };
  for (const value of params) add(value, false);
  return named ? [named, ...anonymous] : anonymous;
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}
