import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OperatorError } from '@assistant/contracts';
import { postgresConfigFromUrl, type DatabaseConfig } from '@assistant/storage';

/**
 * `<data-dir>/database.json`: the PostgreSQL database a data directory was set up with, so that every command that
 * opens the directory later (`serve`, `accounts add`, `serve --login-link`, `backup`) uses it without being told
 * again — instead of making an empty SQLite database beside it and an account the running server does not know.
 * Readable by its owner only: the URL may hold a password (as the owner token of credentials.json beside it is a
 * secret). None for the embedded SQLite database, the default. Read here, with the rest of the configuration;
 * written by the self-hosted server that was given the URL (`@assistant/self-host`).
 */
export function databaseFileIn(dataDir: string): string {
  return join(dataDir, 'database.json');
}

/** What database.json holds. */
export interface RememberedDatabaseFile {
  dialect: 'postgres';
  url: string;
  schema?: string;
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
    const content = JSON.parse(text) as Partial<RememberedDatabaseFile>;
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
