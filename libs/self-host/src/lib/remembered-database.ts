import { chmodSync, existsSync, renameSync, writeFileSync } from 'node:fs';
import { OperatorError } from '@assistant/contracts';
import { sqliteFileIn, type DatabaseConfig } from '@assistant/storage';
import { credentialsFileIn } from '@assistant/client/local';
import { databaseFileIn, type RememberedDatabaseFile } from '@assistant/server-kit';

/**
 * Remembers a PostgreSQL database for the data directory in `<data-dir>/database.json` (written whole or not at
 * all, readable by its owner only: the URL may hold a password), which the configuration reads at every later
 * command (`rememberedDatabase`, @assistant/server-kit). Nothing for the embedded SQLite database, the default.
 */
export function rememberDatabase(dataDir: string, database: DatabaseConfig): void {
  if (database.dialect !== 'postgres') return;
  const file = databaseFileIn(dataDir);
  const content: RememberedDatabaseFile = { dialect: 'postgres', url: database.url, schema: database.schema };
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
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
