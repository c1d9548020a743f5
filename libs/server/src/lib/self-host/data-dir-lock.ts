import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config/server-config';

export interface DataDirLock {
  release(): void;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One server per data directory, like PostgreSQL's postmaster.pid: SQLite itself would survive two writers, but
 * two servers would each keep their own in-memory state (rate limits, running queries) over one database.
 * A lock left by a process that no longer runs is taken over.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const file = join(dataDir, 'server.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, JSON.stringify({ pid: process.pid, started_at: new Date().toISOString() }));
      closeSync(fd);
      const release = () => rmSync(file, { force: true });
      process.once('exit', release);
      return {
        release: () => {
          process.removeListener('exit', release);
          release();
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder(file);
      if (holder && holder !== process.pid && isRunning(holder)) {
        throw new ConfigError(
          `another Assistant server (pid ${holder}) is using the data directory ${dataDir}; stop it first, or give this one its own --data-dir`,
        );
      }
      rmSync(file, { force: true });
    }
  }
  throw new ConfigError(
    `could not lock the data directory ${dataDir}; remove ${file} if no server is running`,
  );
}

function readHolder(file: string): number | null {
  try {
    const pid = Number(JSON.parse(readFileSync(file, 'utf8')).pid);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}
