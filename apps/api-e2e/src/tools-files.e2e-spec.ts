import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILT, run, startServer, type ServerProcess } from './support/processes';

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
    rmSync(dataDir, { recursive: true, force: true });
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
