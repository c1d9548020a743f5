import { sqliteDriver } from './sqlite-driver';

/**
 * Copies the SQLite database in `source` into the new file `target` as it stood at one moment, while a server
 * may be writing to it: `VACUUM INTO` reads the whole database inside one read transaction, so the copy holds
 * every transaction committed before it began and none of those that commit while it runs (in WAL mode the
 * writer is never blocked). Unlike the online backup API it never restarts when the source changes, so it ends
 * under any write load. The source is opened read-only: the copy changes nothing of it. `target` must not exist;
 * SQLite creates it with the process's umask, so put it in a private folder.
 */
export function snapshotSqlite(source: string, target: string): void {
  const Database = sqliteDriver();
  const db = new Database(source, { readonly: true, fileMustExist: true, timeout: 5_000 });
  try {
    db.prepare('VACUUM INTO ?').run(target);
  } finally {
    db.close();
  }
}
