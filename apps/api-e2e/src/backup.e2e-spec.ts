import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AssistantClient } from '@assistant/client';
import { credentialsFileIn, readCredentials } from '@assistant/client/local';
import { BUILT, run, startServer, WORKSPACE_ROOT, type ServerProcess } from './support/processes';

/** A custom tool module, as the README shows one. */
const ORDER_STATUS = `import { defineTool, z } from '@assistant/tool-kit';

export default defineTool({
  name: 'custom_order_status',
  description: 'Where an order of the shop is',
  input: z.object({ id: z.string().describe('the order number, e.g. A-17') }),
  handler: async ({ id }) => ({ id, status: 'shipped' }),
});
`;

/** The Brave Search API key of the connection: the server must decrypt it to search. */
const BRAVE_KEY = 'brave-key-that-must-survive-the-backup';

/**
 * A write the server acknowledged: when its request was sent, and when this process saw the answer
 * (performance.now()). The second may be late — this process is busy — but never early, so "acknowledged before
 * the backup began" is certain; likewise a write sent after the backup ended cannot be in it.
 */
interface Acknowledged {
  kind: 'memory' | 'discussion';
  id: string;
  sentAt: number;
  acknowledgedAt: number;
}

/**
 * `assistant backup` of a running `assistant serve` under constant writes, and `assistant restore` into an empty
 * directory: the restored server has every write acknowledged before the backup began, the custom tools, the
 * accounts' files, the owner's token, and connections whose secrets still open (the secrets key travelled).
 */
describe('assistant backup and assistant restore', () => {
  let scratch: string;
  let brave: Server;
  let braveUrl: string;
  const keysBraveSaw: string[] = [];
  const running: ServerProcess[] = [];

  const assistant = (...args: string[]) => run(BUILT.cli, args, {});
  async function serve(dataDir: string): Promise<ServerProcess> {
    const server = await startServer(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', '0'], {});
    running.push(server);
    return server;
  }
  function clientOf(dataDir: string): AssistantClient {
    const { base_url, token } = readCredentials(credentialsFileIn(dataDir))!;
    return new AssistantClient({ baseUrl: base_url, token });
  }
  async function searchLasagne(dataDir: string) {
    const asked = await run(BUILT.cli, ['chat', '--json', 'search the web for lasagne'], {
      ASSISTANT_DATA_DIR: dataDir,
    });
    return asked.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; tool?: string; status?: string; text?: string });
  }

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'assistant-backup-e2e-'));
    // The custom tools of every data directory below find the kit here, as an `npm install` beside them would.
    mkdirSync(join(scratch, 'node_modules', '@assistant'), { recursive: true });
    symlinkSync(
      join(WORKSPACE_ROOT, 'libs/tools/kit'),
      join(scratch, 'node_modules/@assistant/tool-kit'),
      'dir',
    );
    // Brave's Web Search API, which answers only the connection's key.
    brave = createServer((req, res) => {
      const key = String(req.headers['x-subscription-token'] ?? '');
      keysBraveSaw.push(key);
      res.setHeader('content-type', 'application/json');
      if (key !== BRAVE_KEY) {
        res.statusCode = 401;
        res.end('{"error":"invalid key"}');
        return;
      }
      res.end(
        JSON.stringify({
          web: {
            results: [
              { title: 'Lasagne al forno', url: 'https://example.org/lasagne', description: 'Serves six.' },
            ],
          },
        }),
      );
    });
    await new Promise<void>((resolve) => brave.listen(0, '127.0.0.1', resolve));
    braveUrl = `http://127.0.0.1:${(brave.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await Promise.all(running.map((server) => server.stop()));
    brave?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('restores a backup taken under load: every write acknowledged before it began, tools, files, and secrets that still open', async () => {
    const dataDir = join(scratch, 'data');
    mkdirSync(join(dataDir, 'tools'), { recursive: true });
    writeFileSync(join(dataDir, 'tools', 'orders.mjs'), ORDER_STATUS);
    await serve(dataDir);
    const client = clientOf(dataDir);
    const { token, user_id } = readCredentials(credentialsFileIn(dataDir))!;
    await client.createConnection({
      body: {
        family: 'web',
        provider: 'brave',
        settings: { url: braveUrl },
        secrets: { api_key: BRAVE_KEY },
      },
    });
    expect((await searchLasagne(dataDir)).at(-1)).toMatchObject({
      type: 'query.completed',
      text: expect.stringContaining('Lasagne al forno'),
    });
    const ownFolder = join(dataDir, 'files', user_id, 'Recipes');
    mkdirSync(ownFolder, { recursive: true });
    writeFileSync(join(ownFolder, 'lasagne.txt'), 'layers: 6\n');

    // Four writers, each alternating memories and discussions, until told to stop.
    const acknowledged: Acknowledged[] = [];
    let writing = true;
    let sequence = 0;
    const writer = async () => {
      while (writing) {
        const n = sequence++;
        const sentAt = performance.now();
        const { id } =
          n % 2 === 0
            ? await client.createMemory({ body: { content: `load memory ${n}` } })
            : await client.createDiscussion({ body: { title: `load discussion ${n}` } });
        const kind = n % 2 === 0 ? 'memory' : 'discussion';
        acknowledged.push({ kind, id, sentAt, acknowledgedAt: performance.now() });
      }
    };
    const writers = [writer(), writer(), writer(), writer()];
    while (acknowledged.length < 100) await new Promise((resolve) => setTimeout(resolve, 20));

    const archive = join(scratch, 'backup.tar.gz');
    const began = performance.now();
    const backup = await assistant('backup', archive, '--data-dir', dataDir);
    const ended = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 300));
    writing = false;
    await Promise.all(writers);

    expect({ code: backup.code, stderr: backup.stderr }).toEqual({ code: 0, stderr: '' });
    expect(backup.stdout).toContain(`Backed up ${dataDir} to ${archive}`);
    expect(statSync(archive).mode & 0o777).toBe(0o600);
    const before = acknowledged.filter((write) => write.acknowledgedAt < began);
    const during = acknowledged.filter((write) => write.sentAt > began && write.acknowledgedAt < ended);
    const after = acknowledged.filter((write) => write.sentAt > ended);
    // The backup really ran under load: the server took writes while it ran, and after.
    expect(during.length).toBeGreaterThan(0);
    expect(after.length).toBeGreaterThan(0);

    const restoredDir = join(scratch, 'restored');
    const restore = await assistant('restore', archive, '--data-dir', restoredDir);
    expect({ code: restore.code, stderr: restore.stderr }).toEqual({ code: 0, stderr: '' });
    expect(restore.stdout).toContain(`Start the server on it: assistant serve --data-dir ${restoredDir}`);
    const restoredServer = await serve(restoredDir);
    // The owner's token travelled with the credentials file, and still works.
    expect(readCredentials(credentialsFileIn(restoredDir))).toMatchObject({
      token,
      base_url: restoredServer.url,
    });
    const restored = clientOf(restoredDir);

    const present = new Set<string>();
    for await (const memory of restored.iterate('listMemories', { query: { limit: 100 } }))
      present.add(memory.id);
    for await (const discussion of restored.iterate('listDiscussions', { query: { limit: 100 } }))
      present.add(discussion.id);
    const missing = before.filter((write) => !present.has(write.id));
    expect({ acknowledgedBefore: before.length, missing }).toEqual({
      acknowledgedBefore: before.length,
      missing: [],
    });
    // A snapshot of one moment while it ran: nothing sent after the backup ended is in it. Of the writes during
    // it, those committed before the snapshot's moment are in, the others not (the guarantee is about the rest).
    expect(after.filter((write) => present.has(write.id))).toEqual([]);

    // The connection's key opens with the restored secrets key: the restored server searches with it.
    keysBraveSaw.length = 0;
    const search = await searchLasagne(restoredDir);
    expect(search.find((event) => event.type === 'tool_call.completed')).toMatchObject({
      tool: 'web_search',
      status: 'ok',
    });
    expect(keysBraveSaw).toEqual([BRAVE_KEY]);

    // The custom tool and the account's files came back too.
    expect(restoredServer.output()).toContain(
      `tools:       ${join(restoredDir, 'tools')} (custom_order_status)`,
    );
    expect(readFileSync(join(restoredDir, 'files', user_id, 'Recipes', 'lasagne.txt'), 'utf8')).toBe(
      'layers: 6\n',
    );
  }, 180_000);

  describe('refuses', () => {
    let archive: string;
    let dataDir: string;
    let server: ServerProcess;

    beforeAll(async () => {
      dataDir = join(scratch, 'refusals-data');
      server = await serve(dataDir);
      archive = join(scratch, 'refusals.tar.gz');
      expect((await assistant('backup', archive, '--data-dir', dataDir)).code).toBe(0);
    });

    /** The archive, unpacked into a folder of its own, to be changed and packed again by the system tar. */
    function unpacked(): string {
      const folder = mkdtempSync(join(scratch, 'unpacked-'));
      execFileSync('tar', ['-xzf', archive, '-C', folder]);
      return folder;
    }
    /** Packs `names` of `folder` (manifest first) with the system tar, as written, `..` and links included. */
    function packed(folder: string, names: string[], rename?: string): string {
      const file = join(scratch, `repacked-${readdirSync(scratch).length}.tar.gz`);
      const transform = rename ? ['--transform', rename] : [];
      execFileSync('tar', ['--format=ustar', '-P', ...transform, '-czf', file, ...names], { cwd: folder });
      return file;
    }
    async function refusedRestore(file: string, into: string) {
      const result = await assistant('restore', file, '--data-dir', into);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      return result.stderr.trim();
    }

    it('the data directory of a running server', async () => {
      const listing = readdirSync(dataDir).sort();
      expect(await refusedRestore(archive, dataDir)).toBe(
        `assistant: a server is running on ${dataDir}: stop it first; restore fills only a data directory that no server uses and that holds nothing yet`,
      );
      expect(readdirSync(dataDir).sort()).toEqual(listing);
      expect(server.child.exitCode).toBeNull();
    });

    it('a data directory that holds anything, naming what', async () => {
      const other = join(scratch, 'not-empty');
      mkdirSync(other);
      writeFileSync(join(other, 'assistant.sqlite'), 'another installation');
      expect(await refusedRestore(archive, other)).toBe(
        `assistant: ${other} is not empty (it holds assistant.sqlite): restore only into an empty or new data directory (--data-dir), so that nothing is mixed in or overwritten`,
      );
      expect(readFileSync(join(other, 'assistant.sqlite'), 'utf8')).toBe('another installation');
    });

    it('a backup of an unknown format version, writing nothing', async () => {
      const folder = unpacked();
      const manifest = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8'));
      writeFileSync(
        join(folder, 'manifest.json'),
        JSON.stringify({ ...manifest, format_version: 2, server_version: '9.0.0' }),
      );
      const into = join(scratch, 'never-made');
      expect(
        await refusedRestore(packed(folder, ['manifest.json', 'assistant.sqlite', 'secrets.key']), into),
      ).toMatch(
        /is a backup of format version 2 \(written by Assistant 9\.0\.0\); this Assistant \(\S+\) restores format version 1: restore it with the version that wrote it$/,
      );
      expect(existsSync(into)).toBe(false);
    });

    // Boundaries B7 and B9: an archive made by someone else must not write outside the data directory, nor plant
    // a link that leads out of it. The system tar writes these as they are (-P keeps .. and leading slashes).
    it.each([
      [
        'a path that climbs out with ..',
        [],
        's,^evil.txt$,../../escaped.txt,',
        /"\.\.\/\.\.\/escaped\.txt" is not a plain path inside the data directory/,
      ],
      [
        'an absolute path',
        [],
        `s,^evil.txt$,${'/'}tmp/escaped.txt,`,
        /"\/tmp\/escaped\.txt" is an absolute path/,
      ],
      [
        'a symbolic link, then a file through it',
        ['files/usr_x/link'],
        's,^evil.txt$,files/usr_x/link/escaped.txt,',
        /"files\/usr_x\/link" is a symbolic link; a backup holds only files and folders/,
      ],
    ])('%s, writing nothing anywhere', async (_name, link, rename, message) => {
      const folder = unpacked();
      writeFileSync(join(folder, 'evil.txt'), 'planted');
      mkdirSync(join(folder, 'files', 'usr_x'), { recursive: true });
      symlinkSync(scratch, join(folder, 'files', 'usr_x', 'link'));
      const into = join(scratch, `hostile-${readdirSync(scratch).length}`, 'data');
      const file = packed(folder, ['manifest.json', 'assistant.sqlite', ...link, 'evil.txt'], rename);
      expect(await refusedRestore(file, into)).toMatch(message);
      for (const escaped of [
        join(scratch, 'escaped.txt'),
        join(into, '..', 'escaped.txt'),
        '/tmp/escaped.txt',
      ]) {
        expect({ escaped, exists: existsSync(escaped) }).toEqual({ escaped, exists: false });
      }
      expect(existsSync(into) ? readdirSync(into).filter((name) => !name.startsWith('server.')) : []).toEqual(
        [],
      );
    });
  });
});
