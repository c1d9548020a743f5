import { existsSync } from 'node:fs';
import { OperatorError } from '@assistant/contracts';
import type { Storage } from '@assistant/storage';
import { credentialsFileIn, readCredentials } from '@assistant/client/local';
import { openStorageFor, selfHostConfig } from '@assistant/server-kit';
import { issueSignInLink, normalEmail } from '@assistant/web';
import { dataDirInUse } from './data-dir-lock';
import type { SelfHostOptions } from './self-host';

type DirectoryOptions = Pick<SelfHostOptions, 'dataDir' | 'databaseUrl'>;

/**
 * A fresh one-time sign-in link for the owner of the server that runs on this data directory
 * (`assistant serve --login-link`), made through that directory's database; the link points where that server
 * said it listens (credentials.json), or to ASSISTANT_PUBLIC_URL. Null when no server runs there: starting one
 * prints a link anyway.
 */
export async function issueSelfHostSignInLink(
  options: DirectoryOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | null> {
  const config = selfHostConfig(options, env);
  if (!dataDirInUse(config.dataDir)) return null;
  return withRunningServerDatabase(options, env, async (storage, baseUrl) => {
    const owner = await storage.users.findFirst();
    if (!owner) throw new OperatorError(`the server using ${config.dataDir} has no owner account yet`);
    return issueSignInLink(storage, owner.id, baseUrl);
  });
}

/**
 * A one-time sign-in link for any account of the server running on this data directory, by its email
 * (`assistant accounts login-link`): how a household member added with `accounts add` reaches /profile.
 */
export async function issueAccountSignInLink(
  options: DirectoryOptions & { email?: string },
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const config = selfHostConfig(options, env);
  const email = normalEmail(options.email ?? '');
  if (!email) throw new OperatorError('name the account with --email');
  if (!dataDirInUse(config.dataDir)) {
    throw new OperatorError(
      `no server is running on ${config.dataDir}: start it with "assistant serve" (and the same --data-dir), then run this again`,
    );
  }
  return withRunningServerDatabase(options, env, async (storage, baseUrl) => {
    const user = await storage.users.findByEmail(email);
    if (!user) {
      throw new OperatorError(
        `the server using ${config.dataDir} has no account with the email ${email}; add one with "assistant accounts add --email ${email}"`,
      );
    }
    return issueSignInLink(storage, user.id, baseUrl);
  });
}

/**
 * Runs `use` on the database of the server that runs on this data directory, with the address that server's
 * links point at. The database must be the one that server uses and as current as this command expects: a
 * command never migrates a database under a running server, and what it says names self-hosted commands only.
 */
async function withRunningServerDatabase<T>(
  options: DirectoryOptions,
  env: NodeJS.ProcessEnv,
  use: (storage: Storage, baseUrl: string) => Promise<T>,
): Promise<T> {
  const config = selfHostConfig(options, env);
  const baseUrl = config.publicUrl ?? readCredentials(credentialsFileIn(config.dataDir))?.base_url;
  if (!baseUrl) {
    throw new OperatorError(
      `the server using ${config.dataDir} has not written its address to credentials.json yet; try again in a moment`,
    );
  }
  const otherDatabase = new OperatorError(
    `the server running on ${config.dataDir} does not use ${
      config.database.dialect === 'sqlite' ? 'its embedded database' : 'the database of this --database-url'
    }, or is older than this command: give the same --database-url (or ASSISTANT_DATABASE_URL) it was started with, or restart it with "assistant serve", which brings its database up to date`,
  );
  // An embedded database that is not there is not the running server's: opening it would make an empty one.
  if (config.database.dialect === 'sqlite' && !existsSync(config.database.file)) throw otherDatabase;
  let storage: Storage;
  try {
    storage = await openStorageFor(config.database, 'require-current');
  } catch (error) {
    if (error instanceof OperatorError && /not up to date/.test(error.message)) throw otherDatabase;
    throw error;
  }
  try {
    return await use(storage, baseUrl);
  } finally {
    await storage.close();
  }
}
