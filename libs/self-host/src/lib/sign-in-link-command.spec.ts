/**
 * `assistant serve --login-link` and `assistant accounts login-link` beside a running server: what they say when
 * the data directory's database is not the one the server runs on. They speak of self-hosted commands only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqliteDriver } from '@assistant/storage/testing';
import { openStorage, sqliteFileIn, type Storage } from '@assistant/storage';
import { useSignInLink } from '@assistant/web';
import { lockDataDir, type DataDirLock } from './data-dir-lock';
import { issueAccountSignInLink, issueSelfHostSignInLink } from './sign-in-link-command';

/** The driver the server opens its file with: a test reads and changes that file as the server would. */
const Database = sqliteDriver();

let dataDir: string;
let lock: DataDirLock;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'assistant-login-link-'));
  // A server runs on the directory, as far as the command can tell: it holds the lock.
  lock = lockDataDir(dataDir);
});
afterEach(() => {
  lock.release();
  rmSync(dataDir, { recursive: true, force: true });
});

it('a server running on another database than the one named: says how to name it, never a hosted-only command', async () => {
  const refusal = issueSelfHostSignInLink({ dataDir }, { ASSISTANT_PUBLIC_URL: 'http://127.0.0.1:7747' });
  await expect(refusal).rejects.toThrow(/--database-url/);
  await expect(refusal).rejects.not.toThrow(/hosted-ops/);
});

it('a server older than this command (its database lacks a migration): says to restart it, never a hosted-only command', async () => {
  const file = sqliteFileIn(dataDir);
  await (await openStorage({ dialect: 'sqlite', file }, { migrations: 'run' })).close();
  const database = new Database(file);
  database.prepare('DELETE FROM migrations WHERE id = (SELECT MAX(id) FROM migrations)').run();
  database.close();
  const refusal = issueSelfHostSignInLink({ dataDir }, { ASSISTANT_PUBLIC_URL: 'http://127.0.0.1:7747' });
  await expect(refusal).rejects.toThrow(/restart it with "assistant serve"/);
  await expect(refusal).rejects.not.toThrow(/hosted-ops/);
});

describe('assistant accounts login-link', () => {
  const env = { ASSISTANT_PUBLIC_URL: 'http://127.0.0.1:7747' };
  let storage: Storage;
  let member: string;
  beforeEach(async () => {
    storage = await openStorage({ dialect: 'sqlite', file: sqliteFileIn(dataDir) }, { migrations: 'run' });
    await storage.users.create({ email: 'owner@example.test', displayName: 'Owner' });
    member = (await storage.users.create({ email: 'sam@example.test', displayName: 'Sam' })).id;
  });
  afterEach(() => storage.close());

  it('makes a one-time link that signs in the account of that email', async () => {
    const link = new URL(await issueAccountSignInLink({ dataDir, email: ' Sam@Example.test ' }, env));
    expect(link.origin + link.pathname).toBe('http://127.0.0.1:7747/signin/link');
    expect(await useSignInLink(storage, link.searchParams.get('token'))).toBe(member);
  });

  it('names no account it does not have, and says how to add one', async () => {
    await expect(issueAccountSignInLink({ dataDir, email: 'kim@example.test' }, env)).rejects.toThrow(
      'no account with the email kim@example.test; add one with "assistant accounts add --email kim@example.test"',
    );
  });

  it('asks for the server to run: the link points at it', async () => {
    lock.release();
    await expect(issueAccountSignInLink({ dataDir, email: 'sam@example.test' }, env)).rejects.toThrow(
      /no server is running on .*assistant serve/,
    );
    lock = lockDataDir(dataDir);
  });
});
