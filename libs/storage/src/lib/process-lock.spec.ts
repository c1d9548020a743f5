import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tryLockFile } from './process-lock';
import { sqliteOfAnotherProcess } from './testing';

describe('tryLockFile', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'assistant-lock-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is exclusive while held, also against another process, and free again once released', () => {
    const file = join(dir, 'server.lock');
    const lock = tryLockFile(file);
    expect(lock).not.toBeNull();
    expect(tryLockFile(file)).toBeNull();
    const probe = `const Database = ${sqliteOfAnotherProcess()};
      const db = new Database(${JSON.stringify(file)}, { timeout: 0 });
      try { db.exec('BEGIN EXCLUSIVE'); console.log('got it'); } catch (e) { console.log(e.message); }`;
    const answer = execFileSync(process.execPath, ['--disable-warning=ExperimentalWarning', '-e', probe], {
      encoding: 'utf8',
    });
    expect(answer.trim()).toBe('database is locked');
    lock!.release();
    const again = tryLockFile(file);
    expect(again).not.toBeNull();
    again!.release();
  });
});
