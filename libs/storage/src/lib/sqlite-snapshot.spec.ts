import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqliteDriver } from './sqlite-driver';
import { snapshotSqlite } from './sqlite-snapshot';
import { sqliteOfAnotherProcess } from './testing';

/**
 * A writer in another process commits transactions of two rows each (a pair shares its number), as fast as it
 * can, in WAL mode like the server's database: a snapshot taken meanwhile must hold every pair committed before
 * it began, and never half of one.
 */
const WRITER = `
  const Database = ${sqliteOfAnotherProcess()};
  const db = new Database(process.argv[1], { timeout: 5000 });
  db.exec('PRAGMA journal_mode = WAL');
  const insert = db.prepare('INSERT INTO pairs (pair, side) VALUES (?, ?)');
  let n = 0;
  process.stdout.write('ready\\n');
  for (;; n++) {
    db.exec('BEGIN');
    insert.run(n, 'a');
    insert.run(n, 'b');
    db.exec('COMMIT');
  }
`;

describe('snapshotSqlite', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'assistant-snapshot-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('copies a database under constant writes: every transaction committed before it, none in halves', async () => {
    const source = join(dir, 'live.sqlite');
    const Database = sqliteDriver();
    const setup = new Database(source);
    setup.pragma('journal_mode = WAL');
    setup.exec('CREATE TABLE pairs (pair INTEGER NOT NULL, side TEXT NOT NULL)');
    setup.close();

    const writer = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', '-e', WRITER, source], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      await new Promise<void>((resolve) => writer.stdout.once('data', () => resolve()));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const reader = new Database(source, { readonly: true });
      const committedBefore = (reader.prepare('SELECT COUNT(*) AS n FROM pairs').get() as { n: number }).n;
      reader.close();

      const copy = join(dir, 'copy.sqlite');
      snapshotSqlite(source, copy);

      const snapshot = new Database(copy, { readonly: true });
      const rows = (snapshot.prepare('SELECT COUNT(*) AS n FROM pairs').get() as { n: number }).n;
      const halves = snapshot
        .prepare('SELECT pair FROM pairs GROUP BY pair HAVING COUNT(*) <> 2')
        .all() as Array<{ pair: number }>;
      snapshot.close();
      expect(committedBefore).toBeGreaterThan(0);
      expect(rows).toBeGreaterThanOrEqual(committedBefore);
      expect(halves).toEqual([]);
    } finally {
      writer.kill('SIGKILL');
    }
  });

  it('changes nothing of the source, and refuses a source that does not exist', () => {
    expect(() => snapshotSqlite(join(dir, 'missing.sqlite'), join(dir, 'copy.sqlite'))).toThrow();
    expect(readdirSync(dir)).toEqual([]);
  });
});
