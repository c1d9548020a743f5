import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeSqliteDriver } from './node-sqlite-driver';
import { sqliteDriver, type SqliteDatabase } from './sqlite-driver';

/**
 * The part of better-sqlite3's API that TypeORM's better-sqlite3 driver and this package use (sqlite-driver.ts),
 * held to the same answers whichever driver this Node takes: better-sqlite3 12 on Node 20 (the workspace's Node),
 * node:sqlite from Node 22 (`npm test` runs this suite on Node 24 too: node-versions-checks.mjs). What one gives,
 * the other must give.
 */
const Database = sqliteDriver();
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** What `fn` threw. Errors are compared by their fields: better-sqlite3's come from another realm under jest. */
function thrown(fn: () => unknown): { name?: string; code?: string; message?: string } {
  try {
    fn();
  } catch (error) {
    return error as { name?: string; code?: string; message?: string };
  }
  throw new Error('nothing was thrown');
}

let dir: string;
let db: SqliteDatabase;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'assistant-sqlite-driver-'));
  db = new Database(join(dir, 'test.sqlite'));
  db.exec(`CREATE TABLE people (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    score REAL,
    photo BLOB,
    note TEXT,
    team_id INTEGER REFERENCES teams (id)
  );
  CREATE TABLE teams (id INTEGER PRIMARY KEY, name TEXT NOT NULL)`);
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe(`the SQLite driver on Node ${process.versions.node}`, () => {
  it('is node:sqlite from Node 22, better-sqlite3 12 from @assistant/sqlite-node20 before', () => {
    if (NODE_MAJOR >= 22) expect(Database).toBe(nodeSqliteDriver());
    else expect(Database).toBe(require('@assistant/sqlite-node20'));
  });

  it('binds ? in order and named parameters from one object, and gives plain rows, BLOBs as Buffers', () => {
    const insert = db.prepare('INSERT INTO people (name, score, photo, note) VALUES (?, ?, ?, ?)');
    expect(insert.run('Ada', 1.5, Buffer.from([1, 2, 3]), undefined)).toEqual({
      changes: 1,
      lastInsertRowid: 1,
    });
    expect(insert.run('Grace', 2n, null, 'n').lastInsertRowid).toBe(2);

    const row = db.prepare('SELECT * FROM people WHERE id = $1').get({ 1: 1 });
    expect(row).toStrictEqual({
      id: 1,
      name: 'Ada',
      score: 1.5,
      photo: Buffer.from([1, 2, 3]),
      note: null,
      team_id: null,
    });
    // A plain object (its Object.prototype may be another realm's under jest): node:sqlite's have no prototype.
    expect(String(row)).toBe('[object Object]');
    expect(Object.prototype.hasOwnProperty.call(Object.getPrototypeOf(row), 'hasOwnProperty')).toBe(true);
    expect(Buffer.isBuffer((row as { photo: unknown }).photo)).toBe(true);

    // :name, @name and $name, given without their prefix; the object anywhere among ? values, arrays spread.
    const named = db.prepare('SELECT ? AS first, :name AS name, @score AS score, $note AS note, ? AS last');
    expect(named.get('a', { name: 'n', score: 2, note: null }, 'z')).toEqual({
      first: 'a',
      name: 'n',
      score: 2,
      note: null,
      last: 'z',
    });
    expect(named.get(['a', 'z'], { name: 'n', score: 2, note: null, unused: 1 })).toEqual({
      first: 'a',
      name: 'n',
      score: 2,
      note: null,
      last: 'z',
    });
    expect(db.prepare('SELECT name FROM people ORDER BY id').all()).toStrictEqual([
      { name: 'Ada' },
      { name: 'Grace' },
    ]);
    expect(db.prepare('SELECT name FROM people WHERE id = ?').get(99)).toBeUndefined();
    expect(db.prepare('SELECT name FROM people WHERE id = ?').all(99)).toEqual([]);
  });

  it('refuses a boolean, a Date, an object in an array and two objects of names, as better-sqlite3 does', () => {
    const select = db.prepare('SELECT ? AS value');
    const notBindable = 'SQLite3 can only bind numbers, strings, bigints, buffers, and null';
    expect(thrown(() => select.get(true))).toMatchObject({ name: 'TypeError', message: notBindable });
    expect(thrown(() => select.get(new Date()))).toMatchObject({ name: 'TypeError', message: notBindable });
    expect(thrown(() => select.get([{ a: 1 }]))).toMatchObject({ name: 'TypeError', message: notBindable });
    expect(thrown(() => db.prepare('SELECT $a AS a').get({ a: 1 }, { a: 2 }))).toMatchObject({
      name: 'TypeError',
      message: 'You cannot specify named parameters in two different objects',
    });
    expect(select.get(undefined)).toEqual({ value: null });
  });

  it('tells a statement that returns rows (SELECT, RETURNING, a reading PRAGMA) from one that does not', () => {
    const returning = db.prepare('INSERT INTO people (name) VALUES (?) RETURNING id, name');
    expect(returning.reader).toBe(true);
    expect(returning.all('Ada')).toEqual([{ id: 1, name: 'Ada' }]);
    expect(db.prepare('SELECT 1').reader).toBe(true);
    expect(db.prepare('PRAGMA foreign_keys').reader).toBe(true);
    const update = db.prepare('UPDATE people SET score = ? WHERE name = ?');
    expect(update.reader).toBe(false);
    expect(update.run(3, 'Ada')).toEqual({ changes: 1, lastInsertRowid: 1 });
    expect(update.run(3, 'nobody').changes).toBe(0);
    expect(db.prepare('PRAGMA foreign_keys = ON').reader).toBe(false);
    expect(db.prepare('BEGIN').reader).toBe(false);
  });

  it('runs a transaction: committed, undone on a throw, a nested one (or one inside BEGIN) as a savepoint', () => {
    const insert = db.prepare('INSERT INTO people (name) VALUES (?)');
    const names = () =>
      (db.prepare('SELECT name FROM people ORDER BY id').all() as { name: string }[]).map((r) => r.name);
    const addTwo = db.transaction((first: string, second: string) => {
      insert.run(first);
      insert.run(second);
      return 'added';
    });
    expect(db.inTransaction).toBe(false);
    expect(addTwo('Ada', 'Grace')).toBe('added');
    expect(db.inTransaction).toBe(false);

    const failure = new Error('stop');
    const addThenFail = db.transaction(() => {
      insert.run('Linus');
      expect(db.inTransaction).toBe(true);
      throw failure;
    });
    expect(thrown(addThenFail)).toBe(failure);
    expect(db.inTransaction).toBe(false);

    const outer = db.transaction(() => {
      insert.run('Barbara');
      expect(thrown(addThenFail)).toBe(failure); // its savepoint undone, the outer transaction still open
      expect(db.inTransaction).toBe(true);
      addTwo('Edsger', 'Tony');
    });
    outer();
    expect(names()).toEqual(['Ada', 'Grace', 'Barbara', 'Edsger', 'Tony']);

    // TypeORM opens its transactions with BEGIN: a transaction inside one is a savepoint, undone with it.
    db.exec('BEGIN');
    addTwo('Niklaus', 'John');
    expect(db.inTransaction).toBe(true);
    db.exec('ROLLBACK');
    expect(names()).toEqual(['Ada', 'Grace', 'Barbara', 'Edsger', 'Tony']);

    const promised = db.transaction(() => {
      insert.run('Alan');
      return Promise.resolve();
    });
    expect(thrown(promised)).toMatchObject({
      name: 'TypeError',
      message: 'Transaction function cannot return a promise',
    });
    expect(names()).not.toContain('Alan');
  });

  it('answers a PRAGMA with its rows, or its first value with simple', () => {
    expect(db.pragma('journal_mode = WAL')).toEqual([{ journal_mode: 'wal' }]);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys = OFF')).toEqual([]);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(0);
    expect(db.pragma('foreign_keys = ON')).toEqual([]);
    const columns = db.pragma('table_info("teams")') as { name: string; type: string }[];
    expect(columns.map(({ name, type }) => [name, type])).toEqual([
      ['id', 'INTEGER'],
      ['name', 'TEXT'],
    ]);
  });

  it('waits 5 s for a lock by default, or as long as `timeout` says, then fails with SQLITE_BUSY', () => {
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    const holder = new Database(join(dir, 'test.sqlite'), { timeout: 0 });
    const impatient = new Database(join(dir, 'test.sqlite'), { timeout: 0 });
    const patient = new Database(join(dir, 'test.sqlite'), { timeout: 300 });
    try {
      expect(holder.pragma('busy_timeout', { simple: true })).toBe(0);
      holder.exec('BEGIN EXCLUSIVE');
      expect(thrown(() => impatient.exec('BEGIN EXCLUSIVE'))).toMatchObject({
        name: 'SqliteError',
        code: 'SQLITE_BUSY',
        message: 'database is locked',
      });
      const started = Date.now();
      expect(thrown(() => patient.prepare('SELECT COUNT(*) FROM people').get()).code).toBe('SQLITE_BUSY');
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    } finally {
      for (const connection of [holder, impatient, patient]) connection.close();
    }
  });

  it('throws an SQLite error with its message and the name of its result code, as better-sqlite3 does', () => {
    db.prepare('INSERT INTO people (name) VALUES (?)').run('Ada');
    expect(thrown(() => db.prepare('INSERT INTO people (name) VALUES (?)').run('Ada'))).toMatchObject({
      name: 'SqliteError',
      code: 'SQLITE_CONSTRAINT_UNIQUE',
      message: 'UNIQUE constraint failed: people.name',
    });
    expect(thrown(() => db.prepare('INSERT INTO people (name) VALUES (NULL)').run())).toMatchObject({
      code: 'SQLITE_CONSTRAINT_NOTNULL',
      message: 'NOT NULL constraint failed: people.name',
    });
    db.pragma('foreign_keys = ON');
    expect(
      thrown(() => db.prepare("INSERT INTO people (name, team_id) VALUES ('Bo', 7)").run()),
    ).toMatchObject({
      code: 'SQLITE_CONSTRAINT_FOREIGNKEY',
    });
    expect(thrown(() => db.prepare('SELECT * FROM no_such_table'))).toMatchObject({
      name: 'SqliteError',
      code: 'SQLITE_ERROR',
      message: 'no such table: no_such_table',
    });
    expect(thrown(() => db.exec('INSERT INTO nowhere VALUES (1)'))).toMatchObject({ code: 'SQLITE_ERROR' });
    // node:sqlite would prepare the first statement and drop the second without a word.
    expect(thrown(() => db.prepare('SELECT 1; DELETE FROM people'))).toMatchObject({
      name: 'RangeError',
      message: 'The supplied SQL string contains more than one statement',
    });
    expect(db.prepare('SELECT 1 AS one; -- and a comment').get()).toEqual({ one: 1 });
  });

  it('opens read-only, refuses a missing file that must exist, and creates nothing then', () => {
    db.prepare("INSERT INTO people (name) VALUES ('Ada')").run();
    const reader = new Database(join(dir, 'test.sqlite'), { readonly: true, fileMustExist: true });
    try {
      expect(reader.prepare('SELECT name FROM people').all()).toEqual([{ name: 'Ada' }]);
      expect(thrown(() => reader.exec("INSERT INTO people (name) VALUES ('Grace')"))).toMatchObject({
        code: 'SQLITE_READONLY',
      });
    } finally {
      reader.close();
    }
    const before = readdirSync(dir).sort();
    for (const options of [
      { fileMustExist: true },
      { readonly: true },
      { readonly: true, fileMustExist: true },
    ]) {
      expect(thrown(() => new Database(join(dir, 'missing.sqlite'), options))).toMatchObject({
        name: 'SqliteError',
        code: 'SQLITE_CANTOPEN',
        message: 'unable to open database file',
      });
    }
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it('finds words with FTS5, copies the database with VACUUM INTO, and returns itself from exec and close', () => {
    expect(
      db.exec(`CREATE VIRTUAL TABLE notes USING fts5(content);
        INSERT INTO notes (content) VALUES ('my sister''s birthday is on March 3'), ('buy milk')`),
    ).toBe(db);
    const found = db
      .prepare('SELECT content FROM notes WHERE notes MATCH ? ORDER BY bm25(notes)')
      .all('birthday');
    expect(found).toEqual([{ content: "my sister's birthday is on March 3" }]);

    db.prepare('VACUUM INTO ?').run(join(dir, 'copy.sqlite'));
    const copy = new Database(join(dir, 'copy.sqlite'), { readonly: true });
    expect(copy.prepare('SELECT COUNT(*) AS n FROM notes').get()).toEqual({ n: 2 });
    expect(copy.close()).toBe(copy);
    expect(copy.close()).toBe(copy); // a second close changes nothing
  });
});
