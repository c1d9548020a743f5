import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tryLockFile } from './process-lock';

describe('tryLockFile', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'assistant-lock-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is exclusive while held, also against another process, and free again once released', () => {
    const file = join(dir, 'server.lock');
    const lock = tryLockFile(file);
    expect(lock).not.toBeNull();
    expect(tryLockFile(file)).toBeNull();
    const probe = `const Database = require('better-sqlite3');
      const db = new Database(${JSON.stringify(file)}, { timeout: 0 });
      try { db.exec('BEGIN EXCLUSIVE'); console.log('got it'); } catch (e) { console.log(e.code); }`;
    expect(execFileSync(process.execPath, ['-e', probe], { encoding: 'utf8' }).trim()).toMatch(
      /^SQLITE_BUSY/,
    );
    lock!.release();
    const again = tryLockFile(file);
    expect(again).not.toBeNull();
    again!.release();
  });
});
