import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OperatorError } from '@assistant/contracts';
import { tryLockFile } from '@assistant/storage';

const LOCK_FILE = 'server.lock';
const PID_FILE = 'server.pid';

/**
 * The files of the lock itself, which hold no data: the lock, SQLite's journal of it, and the pid of its holder.
 * A stopped server leaves the lock file behind.
 */
export const DATA_DIR_LOCK_FILES: readonly string[] = [LOCK_FILE, `${LOCK_FILE}-journal`, PID_FILE];

export interface DataDirLock {
  release(): void;
}

/**
 * One server per data directory: SQLite itself would survive two writers, but two servers would each keep their
 * own in-memory state (rate limits, running queries) over one database. The lock is an operating-system file
 * lock that dies with its process; `server.pid` beside it only says who holds it.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const pidFile = join(dataDir, PID_FILE);
  const lock = tryLockFile(join(dataDir, LOCK_FILE));
  if (!lock) {
    const holder = readPid(pidFile);
    throw new OperatorError(
      `another Assistant server${holder ? ` (pid ${holder})` : ''} is using the data directory ${dataDir}; stop it first, or give this one its own --data-dir`,
    );
  }
  writeFileSync(pidFile, `${process.pid}\n`, { mode: 0o600 });
  const release = () => {
    rmSync(pidFile, { force: true });
    lock.release();
  };
  process.once('exit', release);
  return {
    release: () => {
      process.removeListener('exit', release);
      release();
    },
  };
}

/** Whether a server holds the data directory's lock now (it runs on that directory). */
export function dataDirInUse(dataDir: string): boolean {
  const lockFile = join(dataDir, LOCK_FILE);
  if (!existsSync(lockFile)) return false;
  const lock = tryLockFile(lockFile);
  lock?.release();
  return lock === null;
}

function readPid(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}
