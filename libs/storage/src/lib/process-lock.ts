import { sqliteDriver } from './sqlite-driver';

export interface ProcessLock {
  release(): void;
}

/**
 * An exclusive lock on a file, held for as long as this process keeps it. It is SQLite's own file lock, which
 * the operating system drops when the process ends — a crash or `kill -9` included — so a stale lock cannot
 * outlive its holder, unlike a pid file. Returns null when another process holds it.
 */
export function tryLockFile(file: string): ProcessLock | null {
  const Database = sqliteDriver();
  const db = new Database(file, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) return null;
    throw error;
  }
  let held = true;
  return {
    release: () => {
      if (!held) return;
      held = false;
      db.exec('ROLLBACK');
      db.close();
    },
  };
}
