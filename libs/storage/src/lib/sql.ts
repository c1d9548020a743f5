import type { DataSource, EntityManager } from 'typeorm';
import type { Dialect } from './data-source-options';

/**
 * Plain SQL for the hot reads. TypeORM's query builder costs about 0.1 ms of CPU to build a query, more than
 * SQLite takes to run it, so the queries every request makes are written out here, once, with `?`
 * placeholders that become `$1, $2…` on PostgreSQL. Writes and schema still go through TypeORM.
 */
export class Sql {
  private readonly numbered = new Map<string, string>();
  /** SQLite's transactions, one after another (see `transaction`). */
  private sqliteTransactions: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly dataSource: DataSource,
    readonly dialect: Dialect,
  ) {}

  /**
   * Runs `work` in a transaction. TypeORM drives SQLite through one connection, where a second BEGIN while one
   * transaction is open fails ("cannot start a transaction within a transaction"): on SQLite, transactions
   * therefore wait for each other. PostgreSQL's pool gives each its own connection.
   */
  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    if (this.dialect === 'postgres') return this.dataSource.transaction(work);
    const run = this.sqliteTransactions.then(() => this.dataSource.transaction(work));
    this.sqliteTransactions = run.catch(() => undefined);
    return run;
  }

  query<Row>(sql: string, params: unknown[]): Promise<Row[]> {
    return this.dataSource.query(this.dialect === 'postgres' ? this.toPostgres(sql) : sql, params);
  }

  async one<Row>(sql: string, params: unknown[]): Promise<Row | null> {
    return (await this.query<Row>(sql, params))[0] ?? null;
  }

  /** Runs a write and returns how many rows it changed (the two drivers report it in different shapes). */
  async execute(sql: string, params: unknown[]): Promise<number> {
    const runner = this.dataSource.createQueryRunner();
    try {
      const result = await runner.query(
        this.dialect === 'postgres' ? this.toPostgres(sql) : sql,
        params,
        true,
      );
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
