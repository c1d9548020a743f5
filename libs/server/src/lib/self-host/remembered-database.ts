import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OperatorError } from '@assistant/contracts';
import { postgresConfigFromUrl, sqliteFileIn, type DatabaseConfig } from '@assistant/storage';
import { credentialsFileIn } from '@assistant/client/local';

/**
 * `<data-dir>/database.json`: the PostgreSQL database a data directory was set up with, so that every command that
 * opens the directory later (`serve`, `accounts add`, `serve --login-link`, `backup`) uses it without being told
 * again — instead of making an empty SQLite database beside it and an account the running server does not know.
 * Readable by its owner only: the URL may hold a password (as the owner token of credentials.json beside it is a
 * secret). None for the embedded SQLite database, the default.
 */
export function databaseFileIn(dataDir: string): string {
  return join(dataDir, 'database.json');
}

interface DatabaseFile {
  dialect: 'postgres';
  url: string;
  schema?: string;
}

/** Remembers a PostgreSQL database for the data directory (written whole or not at all). */
export function rememberDatabase(dataDir: string, database: DatabaseConfig): void {
  if (database.dialect !== 'postgres') return;
  const file = databaseFileIn(dataDir);
  const content: DatabaseFile = { dialect: 'postgres', url: database.url, schema: database.schema };
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}

/** The database the data directory remembers, if any; a file that cannot be read is a clear refusal. */
export function rememberedDatabase(dataDir: string): DatabaseConfig | undefined {
  const file = databaseFileIn(dataDir);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new OperatorError(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    const content = JSON.parse(text) as Partial<DatabaseFile>;
    if (content.dialect !== 'postgres' || typeof content.url !== 'string') throw new Error('no postgres URL');
    const url = new URL(content.url);
    if (content.schema) url.searchParams.set('schema', content.schema);
    return postgresConfigFromUrl(url.toString());
  } catch (error) {
    throw new OperatorError(
      `${file} does not name a PostgreSQL database (${(error as Error).message}); give --database-url, which writes it again`,
    );
  }
}

/**
 * Refuses to use the embedded database of a data directory that has a server's credentials but no such database
 * and no remembered one: a server set up on PostgreSQL before database.json existed. Going on would make a second,
 * empty database and tokens that server rejects.
 */
export function refuseUnknownDatabase(dataDir: string, database: DatabaseConfig): void {
  if (database.dialect !== 'sqlite' || existsSync(database.file)) return;
  if (database.file !== sqliteFileIn(dataDir) || !existsSync(credentialsFileIn(dataDir))) return;
  throw new OperatorError(
    `the data directory ${dataDir} has a server's credentials but no embedded database: its server uses PostgreSQL; give its --database-url (once: the data directory remembers it from then on)`,
  );
}
