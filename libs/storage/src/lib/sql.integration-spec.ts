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

  it('reads one row: the first of several, or null', async () => {
    const { storage, sql, dispose } = await openPlainSql(dialect);
    try {
      const ada = await storage.users.create({ email: 'ada@example.com', displayName: 'Ada' });
      const bob = await storage.users.create({ email: 'bob@example.com', displayName: 'Bob' });
      const first = [ada.id, bob.id].sort()[0];
      expect(await sql.one('SELECT id FROM users ORDER BY id', [])).toEqual({ id: first });
      expect(await sql.one('SELECT id FROM users WHERE id = ?', ['usr_none'])).toBeNull();
      expect((await storage.users.findById(bob.id))?.displayName).toBe('Bob');
      const failure = await sql.one('SELECT id FROM no_such_table', []).then(
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

  it('writes in order, each statement seeing those before it, and all or nothing', async () => {
    const { storage, sql, dispose } = await openPlainSql(dialect);
    try {
      const user = await storage.users.create({ email: 'ada@example.com', displayName: 'Ada' });
      const append = (suffix: string) => ({
        sql: 'UPDATE users SET display_name = display_name || ? WHERE id = ?',
        params: [suffix, user.id],
      });
      await sql.writeInOrder([append(' L.'), append(' B.')]);
      expect((await storage.users.findById(user.id))?.displayName).toBe('Ada L. B.');

      const failure = await sql
        .writeInOrder([
          append(' C.'),
          { sql: 'UPDATE users SET email = NULL WHERE id = ?', params: [user.id] },
        ])
        .then(
          () => 'no error',
          (error: unknown) => String((error as Error).message),
        );
      expect(failure).toMatch(/NOT NULL|null value/);
      expect((await storage.users.findById(user.id))?.displayName).toBe('Ada L. B.');
    } finally {
      await dispose();
    }
  });
});

/** PostgreSQL runs a batch of writes as one transaction (one round trip: Sql's postgresBatch). */
describe('plain SQL writes on postgres', () => {
  it('runs the statements of one write in one transaction, and the next write in another', async () => {
    const { storage, sql, dispose } = await openPlainSql('postgres');
    try {
      const ada = await storage.users.create({ email: 'ada@example.com', displayName: 'Ada' });
      const bob = await storage.users.create({ email: 'bob@example.com', displayName: 'Bob' });
      const stamp = (id: string) => ({
        sql: 'UPDATE users SET display_name = txid_current()::text WHERE id = ?',
        params: [id],
      });
      const names = async () =>
        Promise.all([ada.id, bob.id].map(async (id) => (await storage.users.findById(id))?.displayName));

      await sql.writeTogether([stamp(ada.id), stamp(bob.id)]);
      const [first, second] = await names();
      expect(first).toBe(second);

      await sql.writeInOrder([stamp(ada.id)]);
      expect((await names())[0]).not.toBe(first);
      // The pool's connection is usable again after a batch that failed.
      await expect(sql.writeInOrder([{ sql: 'UPDATE no_such_table SET x = 1', params: [] }])).rejects.toThrow(
        /no_such_table/,
      );
      await sql.writeTogether([stamp(bob.id)]);
      expect((await names())[1]).not.toBe(second);
    } finally {
      await dispose();
    }
  });
});
