import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { Dialect } from './data-source-options';
import type { SqliteDatabase, SqliteStatement } from './sqlite-driver';
import { runBatch, type PostgresClient } from './postgres-batch';

/** How many prepared SQLite statements are kept: the repositories' fixed texts, with room for their variants. */
const SQLITE_STATEMENTS_KEPT = 500;
/**
 * How many reads are prepared by name on PostgreSQL (each connection of the pool prepares a name once, on the
 * server); texts beyond these (unusual variants) run unprepared.
 */
const POSTGRES_NAMED_READS = 200;
/** A statement that only reads: on PostgreSQL these may run as named prepared statements. */
const READ_ONLY = /^\s*SELECT\b/i;

/** How a read is run. */
export interface QueryOptions {
  /**
   * PostgreSQL: plan the statement with its values every time instead of preparing it by name. A prepared
   * statement may settle on one generic plan after five runs; a search whose best plan depends on its values
   * (how common its words are: the user's newest memories from an index for common words, the GIN posting lists
   * for rare ones) must not: measured on 1,000,000 memories, 90 ms instead of 0.8 ms for a common word.
   */
  planEachTime?: boolean;
}

/** The part of pg's pool the plain reads and the batched writes use. */
interface PostgresPool {
  /** Without a name, the statement is parsed and planned with its values each time. */
  query<Row>(query: { name?: string; text: string; values: unknown[] }): Promise<{ rows: Row[] }>;
  connect(): Promise<PostgresClient & { release(error?: Error | boolean): void }>;
}

/** One statement with its `?` parameters, for the writes that run several together. */
export interface SqlStatement {
  sql: string;
  params: unknown[];
}

/**
 * Plain SQL for the hot reads. TypeORM's query builder costs about 0.1 ms of CPU to build a query, more than
 * SQLite takes to run it, so the queries every request makes are written out here, once, with `?`
 * placeholders that become `$1, $2…` on PostgreSQL. The rarer entity writes and the schema go through TypeORM.
 */
export class Sql {
  private readonly numbered = new Map<string, string>();
  /** SQLite's prepared statements by text; reads run on them directly (see `query`). */
  private readonly sqliteStatements = new Map<string, SqliteStatement>();
  /** PostgreSQL's names of the prepared reads, by their `?` text. */
  private readonly postgresNames = new Map<string, string>();

  constructor(
    private readonly dataSource: DataSource,
    readonly dialect: Dialect,
  ) {}

  /**
   * Runs writes as one transaction, in order. On SQLite they run at once, in one synchronous transaction of the
   * driver (sqlite-driver.ts) on TypeORM's one connection (a savepoint when a TypeORM transaction is open there, as a
   * statement of `query` would join it), so no other statement can come between them; on PostgreSQL, as one
   * batch on a connection of the pool (`runBatch`: one round trip, one implicit transaction). Plain SQL
   * throughout: TypeORM's query builder and query runner cost more than SQLite takes to write a row.
   */
  writeTogether(statements: ReadonlyArray<SqlStatement>): Promise<void> {
    if (this.dialect === 'sqlite') {
      try {
        const prepared = statements.map(({ sql, params }) => ({
          statement: this.sqliteStatement(sql),
          params,
        }));
        this.sqliteConnection().transaction(() => {
          for (const { statement, params } of prepared) statement.run(...params);
        })();
        return Promise.resolve();
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.postgresBatch(statements);
  }

  /**
   * Runs writes in order, each complete before the next starts, for callers that need their order and not
   * necessarily their atomicity — they get it all the same, as one transaction (writeTogether). On SQLite: one
   * commit instead of one per statement, and each commit writes every page it touched to the WAL, so two
   * statements on the same pages write them once. On PostgreSQL: one round trip instead of one per statement
   * (the write-behind of 50 running queries' events is 50 statements).
   */
  async writeInOrder(statements: ReadonlyArray<SqlStatement>): Promise<void> {
    return this.writeTogether(statements);
  }

  /**
   * Runs one statement and returns its rows. Statements skip TypeORM's query runner, which adds ~10 µs of
   * promises, events and logging per query around work that takes a few µs: on SQLite every statement runs
   * straight on its prepared statement, on TypeORM's one connection (so what it sees and where it writes, inside
   * or outside a transaction, is unchanged); on PostgreSQL it runs on the same pool as a named prepared statement, so that the server parses
   * and plans it once per connection instead of on every request.
   */
  query<Row>(sql: string, params: unknown[], options: QueryOptions = {}): Promise<Row[]> {
    if (this.dialect === 'sqlite') {
      try {
        const statement = this.sqliteStatement(sql);
        if (statement.reader) return Promise.resolve(statement.all(...params) as Row[]);
        // Writes too (the query events' write-behind is one per batch of tokens): same connection, same
        // transaction as TypeORM's own statements would see.
        statement.run(...params);
        return Promise.resolve([]);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const name = READ_ONLY.test(sql) && !options.planEachTime ? this.postgresName(sql) : undefined;
    // A search planned each time runs unnamed on the pool, also without TypeORM's query runner.
    if (name === undefined && !options.planEachTime)
      return this.dataSource.query(this.toPostgres(sql), params);
    return this.postgresPool()
      .query<Row>({ name, text: this.toPostgres(sql), values: params })
      .then((result) => result.rows);
  }

  /**
   * The first row of a read, or null. On SQLite, the statement's `get`: it stops at that row (no array, no step to
   * the end of the results).
   */
  one<Row>(sql: string, params: unknown[]): Promise<Row | null> {
    try {
      const row = this.oneAtOnce<Row>(sql, params);
      return row instanceof Promise ? row : Promise.resolve(row);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * `one`, without a promise on SQLite, whose driver answers at once (its errors are thrown); a promise on
   * PostgreSQL. For a read that every request makes (`GET /me`'s user), where a promise and its microtask at each
   * layer up to the handler are a measurable part of the request.
   */
  oneAtOnce<Row>(sql: string, params: unknown[]): Row | null | Promise<Row | null> {
    if (this.dialect !== 'sqlite') return this.query<Row>(sql, params).then((rows) => rows[0] ?? null);
    const statement = this.sqliteStatement(sql);
    if (statement.reader) return (statement.get(...params) as Row | undefined) ?? null;
    statement.run(...params);
    return null;
  }

  /** Runs a write and returns how many rows it changed (the two drivers report it in different shapes). */
  async execute(sql: string, params: unknown[]): Promise<number> {
    // SQLite: on its prepared statement, as `query` runs it (TypeORM's query runner prepares it every time).
    if (this.dialect === 'sqlite') return this.sqliteStatement(sql).run(...params).changes;
    const runner = this.dataSource.createQueryRunner();
    try {
      const result = await runner.query(this.toPostgres(sql), params, true);
      return result.affected ?? 0;
    } finally {
      await runner.release();
    }
  }

  /**
   * A time as a parameter of plain SQL: PostgreSQL's driver takes a Date; SQLite keeps TypeORM's UTC text, which
   * compares in time order.
   */
  time(date: Date): Date | string {
    return this.dialect === 'postgres' ? date : date.toISOString().replace('T', ' ').replace('Z', '');
  }

  /** PostgreSQL: `statements` in one round trip on a connection of the pool, as one transaction. */
  private async postgresBatch(statements: ReadonlyArray<SqlStatement>): Promise<void> {
    if (statements.length === 0) return;
    const client = await this.postgresPool().connect();
    try {
      await runBatch(
        client,
        statements.map(({ sql, params }) => ({ text: this.toPostgres(sql), values: params })),
      );
    } catch (error) {
      // A connection that failed mid-batch may be in any state: the pool drops it rather than hand it out again.
      client.release(error as Error);
      throw error;
    }
    client.release();
  }

  /** TypeORM's PostgreSQL driver keeps its pg pool as `master`. */
  private postgresPool(): PostgresPool {
    return (this.dataSource.driver as unknown as { master: PostgresPool }).master;
  }

  /**
   * A read's statement name: from a digest of its text, because a pool's connections know a name for good and
   * anything else on the same pool (another Sql, a test) must never give the same name to another text.
   */
  private postgresName(sql: string): string | undefined {
    let name = this.postgresNames.get(sql);
    if (name === undefined && this.postgresNames.size < POSTGRES_NAMED_READS) {
      name = `assistant_${createHash('sha256').update(sql).digest('hex').slice(0, 32)}`;
      this.postgresNames.set(sql, name);
    }
    return name;
  }

  private sqliteStatement(sql: string): SqliteStatement {
    let statement = this.sqliteStatements.get(sql);
    if (statement === undefined) {
      statement = this.sqliteConnection().prepare(sql);
      if (this.sqliteStatements.size >= SQLITE_STATEMENTS_KEPT)
        this.sqliteStatements.delete(this.sqliteStatements.keys().next().value as string);
      this.sqliteStatements.set(sql, statement);
    }
    return statement;
  }

  /** TypeORM's better-sqlite3 driver holds the one connection it opened (with WAL and the pragmas). */
  private sqliteConnection(): SqliteDatabase {
    return (this.dataSource.driver as unknown as { databaseConnection: SqliteDatabase }).databaseConnection;
  }

  private toPostgres(sql: string): string {
    let out = this.numbered.get(sql);
    if (out === undefined) {
      let n = 0;
      out = sql.replace(/\?/g, () => `$${++n}`);
      this.numbered.set(sql, out);
    }
    return out;
  }
}

/** A stored time: PostgreSQL hands out Dates; SQLite keeps TypeORM's UTC text, `YYYY-MM-DD HH:MM:SS.SSS`. */
export function toDate(value: unknown): Date {
  if (value instanceof Date) return value;
  const text = String(value);
  return new Date(text.includes('T') ? text : `${text.replace(' ', 'T')}Z`);
}

export function toDateOrNull(value: unknown): Date | null {
  return value === null || value === undefined ? null : toDate(value);
}

/** `simple-json` columns are text in both dialects. */
export function fromJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}
