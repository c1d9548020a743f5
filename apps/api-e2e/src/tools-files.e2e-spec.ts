import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AssistantClient } from '@assistant/client';
import { readCredentials, credentialsFileIn } from '@assistant/client/local';
import { BUILT, run, startServer, type ServerProcess } from './support/processes';

/** The machine's WebDAV server (rclone, started by tools/workspace/services/webdav.sh) and the folder it serves. */
const WEBDAV = process.env.ASSISTANT_TEST_WEBDAV_URL ?? 'http://127.0.0.1:8088';
const WEBDAV_ROOT = process.env.ASSISTANT_TEST_WEBDAV_ROOT ?? '/var/tmp/assistant-webdav/root';

/**
 * The files family end to end, with the confirmation that every change needs: `assistant chat` against a real
 * `assistant serve` (built-in model), whose account has its own folder in the data directory without setup.
 */
describe('files through a query, with confirmation', () => {
  let dataDir: string;
  let server: ServerProcess;
  const chat = (...args: string[]) => run(BUILT.cli, ['chat', ...args], { ASSISTANT_DATA_DIR: dataDir });
  /** The owner's own folder: <data-dir>/files/<user id>. */
  const ownFolder = () => {
    const accounts = readdirSync(join(dataDir, 'files'));
    expect(accounts).toHaveLength(1);
    return join(dataDir, 'files', accounts[0]);
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'assistant-files-e2e-'));
    server = await startServer(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', '0'], {});
  });
  afterAll(async () => {
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses to write without a terminal to ask, and says how to approve', async () => {
    const refused = await chat('write "milk and eggs" to shopping.txt');
    expect(refused.stderr).toContain('refused files_write');
    expect(refused.stderr).toContain('approve with --yes');
    expect(refused.stdout).toBe("I couldn't do that: you did not approve it, so it was not done.\n");
    // Refused before it ran: the account's folder was not even opened.
    expect(existsSync(join(dataDir, 'files'))).toBe(false);
  });

  it('writes once approved with --yes, then reads and finds the file', async () => {
    const written = await chat('--yes', 'write "milk and eggs" to shopping.txt');
    expect(written.code).toBe(0);
    expect(written.stdout).toBe('I saved shopping.txt.\n');
    expect(readFileSync(join(ownFolder(), 'shopping.txt'), 'utf8')).toBe('milk and eggs\n');

    // Into a folder that is not there yet: it is made.
    const nested = await chat('--yes', 'put buy stamps into notes/todo.txt');
    expect(nested.code).toBe(0);
    expect(readFileSync(join(ownFolder(), 'notes', 'todo.txt'), 'utf8')).toBe('buy stamps\n');

    const read = await chat('read shopping.txt');
    expect(read.stdout).toBe('shopping.txt says: milk and eggs\n');
    const found = await chat('find my files about eggs');
    expect(found.stdout).toBe('I found one file: shopping.txt (“milk and eggs”).\n');
  });

  it('keeps paths inside the folder, whatever the question says', async () => {
    const escaped = await chat('read ../../credentials.json');
    expect(escaped.stdout).toMatch(/^I couldn't do that: .*outside the folder/);
  });
});

/**
 * A folder on a real WebDAV server (rclone) connected over the API: it takes the files tools over from the
 * account's default folder, and a write through it lands on the server once approved.
 */
describe('files on WebDAV through a connection and a query', () => {
  const share = `e2e-${randomBytes(4).toString('hex')}`;
  let dataDir: string;
  let server: ServerProcess;
  const chat = (...args: string[]) => run(BUILT.cli, ['chat', ...args], { ASSISTANT_DATA_DIR: dataDir });

  beforeAll(async () => {
    // This test's own folder of the share, made through WebDAV (rclone caches its listing of the disk).
    const made = await fetch(`${WEBDAV}/${share}/`, {
      method: 'MKCOL',
      headers: { authorization: `Basic ${Buffer.from('alice:secret').toString('base64')}` },
    }).catch((error: Error) => {
      throw new Error(
        `no WebDAV server at ${WEBDAV} (${error.message}); start it with tools/workspace/services/webdav.sh`,
      );
    });
    expect(made.status).toBe(201);
    dataDir = mkdtempSync(join(tmpdir(), 'assistant-webdav-e2e-'));
    server = await startServer(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', '0'], {});
  });
  afterAll(async () => {
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    rmSync(join(WEBDAV_ROOT, share), { recursive: true, force: true });
  });

  it('connects the folder, writes to it once approved, and finds and reads what it holds', async () => {
    const credentials = readCredentials(credentialsFileIn(dataDir))!;
    const client = new AssistantClient({ baseUrl: credentials.base_url, token: credentials.token });
    const body = {
      family: 'files' as const,
      provider: 'webdav',
      settings: { url: `${WEBDAV}/${share}/`, username: 'alice' },
    };
    const refused = await client
      .createConnection({ body: { ...body, secrets: { password: 'wrong' } } })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 422, code: 'connection_failed' });
    const connection = await client.createConnection({ body: { ...body, secrets: { password: 'secret' } } });
    expect(connection).toMatchObject({ provider: 'webdav', status: 'ok' });

    const written = await chat('--yes', 'write "file the tax return by May" to taxes.txt');
    expect(written.stdout).toBe('I saved taxes.txt.\n');
    expect(readFileSync(join(WEBDAV_ROOT, share, 'taxes.txt'), 'utf8')).toBe('file the tax return by May\n');
    // Not in the default folder: the WebDAV connection serves the files tools now.
    expect(existsSync(join(dataDir, 'files'))).toBe(false);

    expect((await chat('find my notes about taxes')).stdout).toMatch(/^I found one file: taxes\.txt/);
    expect((await chat('read taxes.txt')).stdout).toBe('taxes.txt says: file the tax return by May\n');
  });
});
