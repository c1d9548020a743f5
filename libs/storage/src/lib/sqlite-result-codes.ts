/** SQLite's primary result codes, by number (sqlite3.h): 0 is SQLITE_OK … 28 SQLITE_WARNING. */
const PRIMARY = [
  'OK',
  'ERROR',
  'INTERNAL',
  'PERM',
  'ABORT',
  'BUSY',
  'LOCKED',
  'NOMEM',
  'READONLY',
  'INTERRUPT',
  'IOERR',
  'CORRUPT',
  'NOTFOUND',
  'FULL',
  'CANTOPEN',
  'PROTOCOL',
  'EMPTY',
  'SCHEMA',
  'TOOBIG',
  'CONSTRAINT',
  'MISMATCH',
  'MISUSE',
  'NOLFS',
  'AUTH',
  'FORMAT',
  'RANGE',
  'NOTADB',
  'NOTICE',
  'WARNING',
];

/**
 * SQLite's extended result codes (sqlite3.h): `primary | (n << 8)`, the suffixes of n = 1, 2, … of each primary
 * code ('' where SQLite uses no such n).
 */
const EXTENDED: Record<string, string[]> = {
  OK: ['LOAD_PERMANENTLY', 'SYMLINK'],
  ERROR: ['MISSING_COLLSEQ', 'RETRY', 'SNAPSHOT', 'RESERVESIZE', 'KEY', 'UNABLE'],
  ABORT: ['', 'ROLLBACK'],
  BUSY: ['RECOVERY', 'SNAPSHOT', 'TIMEOUT'],
  LOCKED: ['SHAREDCACHE', 'VTAB'],
  READONLY: ['RECOVERY', 'CANTLOCK', 'ROLLBACK', 'DBMOVED', 'CANTINIT', 'DIRECTORY'],
  IOERR: [
    'READ',
    'SHORT_READ',
    'WRITE',
    'FSYNC',
    'DIR_FSYNC',
    'TRUNCATE',
    'FSTAT',
    'UNLOCK',
    'RDLOCK',
    'DELETE',
    'BLOCKED',
    'NOMEM',
    'ACCESS',
    'CHECKRESERVEDLOCK',
    'LOCK',
    'CLOSE',
    'DIR_CLOSE',
    'SHMOPEN',
    'SHMSIZE',
    'SHMLOCK',
    'SHMMAP',
    'SEEK',
    'DELETE_NOENT',
    'MMAP',
    'GETTEMPPATH',
    'CONVPATH',
    'VNODE',
    'AUTH',
    'BEGIN_ATOMIC',
    'COMMIT_ATOMIC',
    'ROLLBACK_ATOMIC',
    'DATA',
    'CORRUPTFS',
    'IN_PAGE',
    'BADKEY',
    'CODEC',
  ],
  CORRUPT: ['VTAB', 'SEQUENCE', 'INDEX'],
  CANTOPEN: ['NOTEMPDIR', 'ISDIR', 'FULLPATH', 'CONVPATH', 'DIRTYWAL', 'SYMLINK'],
  CONSTRAINT: [
    'CHECK',
    'COMMITHOOK',
    'FOREIGNKEY',
    'FUNCTION',
    'NOTNULL',
    'PRIMARYKEY',
    'TRIGGER',
    'UNIQUE',
    'VTAB',
    'ROWID',
    'PINNED',
    'DATATYPE',
  ],
  AUTH: ['USER'],
  NOTICE: ['RECOVER_WAL', 'RECOVER_ROLLBACK', 'RBU'],
  WARNING: ['AUTOINDEX'],
};

/**
 * The name of an SQLite result code, as better-sqlite3 gives it in an error's `code`: 2067 is
 * `SQLITE_CONSTRAINT_UNIQUE`, 5 `SQLITE_BUSY`; `UNKNOWN_SQLITE_ERROR_<n>` for a number SQLite does not define.
 */
export function sqliteCodeName(code: number): string {
  const primary = PRIMARY[code & 0xff];
  const n = code >> 8;
  if (primary !== undefined && n === 0) return `SQLITE_${primary}`;
  const suffix = primary === undefined ? undefined : EXTENDED[primary]?.[n - 1];
  return suffix ? `SQLITE_${primary}_${suffix}` : `UNKNOWN_SQLITE_ERROR_${code}`;
}
