import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresConfigFromUrl, type DatabaseConfig, type Dialect } from './data-source-options';
import { Sql } from './sql';
import { openDatabase } from './storage';
import { TEST_DATABASE_URL } from './testing';

/** A migrated database of `dialect` (a throwaway file or schema), with a Sql on it and how to drop it. */
async function openPlainSql(dialect: Dialect) {
  const dir = mkdtempSync(join(tmpdir(), 'assistant-sql-'));
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const config: DatabaseConfig =
    dialect === 'sqlite'
      ? { dialect, file: join(dir, 'test.sqlite') }
      : postgresConfigFromUrl(`${TEST_DATABASE_URL}?schema=${schema}`);
  const { storage, dataSource } = await openDatabase(config, { migrations: 'run' });
  return {
    storage,
    sql: new Sql(dataSource, dialect),
    dispose: async () => {
      if (dialect === 'postgres') await dataSource.query(`DROP SCHEMA "${schema}" CASCADE`);
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Statements skip TypeORM (prepared statements kept per text; reads named on PostgreSQL); writes land as before. */
describe.each(['sqlite', 'postgres'] as const)('plain SQL on %s', (dialect: Dialect) => {
  it('answers more distinct reads than it keeps prepared, and runs writes as before', async () => {
    const { storage, sql, dispose } = await openPlainSql(dialect);
    try {
      const user = await storage.users.create({ email: 'ada@example.com', displayName: 'Ada' });
      // Beyond both caps (500 SQLite statements kept, 200 PostgreSQL names), each text read twice.
      for (let n = 1; n <= 600; n++) {
        for (let again = 0; again < 2; again++) {
          const rows = await sql.query<{ id: string; n: number }>(
            `SELECT id, ${n} AS n FROM users WHERE id = ?`,
            [user.id],
          );
          expect(rows).toEqual([{ id: user.id, n }]);
        }
      }
      await sql.query('UPDATE users SET display_name = ? WHERE id = ?', ['Ada L.', user.id]);
      expect((await storage.users.findById(user.id))?.displayName).toBe('Ada L.');
      // Read by its message: better-sqlite3's native part keeps the error class of the first test file that loaded
      // it in this jest worker (another realm), which jest's toThrow does not take for an error.
      const failure = await sql.query('SELECT id FROM no_such_table', []).then(
        () => 'no error',
        (error: unknown) => String((error as Error).message),
      );
      expect(failure).toMatch(/no_such_table/);
    } finally {
      await dispose();
    }
  });

  it('writes statements together or not at all, and counts the rows a write changed', async () => {
    const { storage, sql, dispose } = await openPlainSql(dialect);
    try {
      const user = await storage.users.create({ email: 'ada@example.com', displayName: 'Ada' });
      const rename = { sql: 'UPDATE users SET display_name = ? WHERE id = ?', params: ['Ada L.', user.id] };
      const failure = await sql
        // The second fails as it runs (prepared, it is a valid statement): the first is undone.
        .writeTogether([rename, { sql: 'UPDATE users SET email = NULL WHERE id = ?', params: [user.id] }])
        .then(
          () => 'no error',
          (error: unknown) => String((error as Error).message),
        );
      expect(failure).toMatch(/NOT NULL|null value/);
      expect((await storage.users.findById(user.id))?.displayName).toBe('Ada');

      await sql.writeTogether([rename]);
      expect((await storage.users.findById(user.id))?.displayName).toBe('Ada L.');
      const rows = { sql: 'UPDATE users SET display_name = ? WHERE id = ?', params: ['Ada', user.id] };
      expect(await sql.execute(rows.sql, rows.params)).toBe(1);
      expect(await sql.execute(rows.sql, ['Ada', 'no-such-user'])).toBe(0);
    } finally {
      await dispose();
    }
  });
});
