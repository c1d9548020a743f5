import { basename, win32 } from 'node:path';
import { sqliteFileIn } from '@assistant/storage';
import { credentialsFileIn } from '@assistant/client/local';
import { SECRETS_KEY_FILE } from '@assistant/server-kit';
import { describeType, TYPE } from './tar-format';

/**
 * The entries of a backup archive: the manifest first, then what of a data directory is worth keeping, under the
 * names it has there. The lock and pid files, and SQLite's -wal and -shm files (the snapshot is whole), stay out.
 */
export const ARCHIVE = {
  manifest: 'manifest.json',
  database: basename(sqliteFileIn('/')),
  secretsKey: SECRETS_KEY_FILE,
  credentials: basename(credentialsFileIn('/')),
  /** The custom tools, from wherever the server loads them; restored into `<data-dir>/tools`. */
  tools: 'tools',
  /** Each account's own folder, `<data-dir>/files/<account>` (the files family's default connection). */
  files: 'files',
} as const;

const TOP_LEVEL_FILES: readonly string[] = [ARCHIVE.database, ARCHIVE.secretsKey, ARCHIVE.credentials];
const TOP_LEVEL_FOLDERS: readonly string[] = [ARCHIVE.tools, ARCHIVE.files];

export interface EntryPlace {
  /** The path's parts, none empty, `.` or `..`. */
  segments: string[];
  directory: boolean;
}

/**
 * Where an archive entry may go in a data directory, or why it may not: only files and folders, only by a
 * relative path that stays inside (no `..`, nothing absolute, no backslash), only among the names a backup
 * writes. Links are refused outright, so no entry can lead a later one out of the directory either.
 */
export function entryPlace(path: string, type: string): EntryPlace | { refused: string } {
  const shown = JSON.stringify(path);
  const directory = type === TYPE.directory;
  if (!directory && type !== TYPE.file && type !== TYPE.oldFile) {
    return { refused: `${shown} is ${describeType(type)}; a backup holds only files and folders` };
  }
  if (path.includes('\0') || path.includes('\\')) {
    return { refused: `${shown} has a character no backup writes in a path` };
  }
  if (path.startsWith('/') || win32.isAbsolute(path)) {
    return { refused: `${shown} is an absolute path; a backup holds only paths inside the data directory` };
  }
  const segments = (directory && path.endsWith('/') ? path.slice(0, -1) : path).split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    return { refused: `${shown} is not a plain path inside the data directory (empty, . or .. parts)` };
  }
  const [top] = segments;
  const allowed =
    segments.length === 1
      ? directory
        ? TOP_LEVEL_FOLDERS.includes(top)
        : TOP_LEVEL_FILES.includes(top)
      : TOP_LEVEL_FOLDERS.includes(top);
  if (!allowed) return { refused: `${shown} is not part of an Assistant data directory` };
  return { segments, directory };
}
