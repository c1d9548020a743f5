import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { tarBlocks, type TarSource, type TarWriteReport } from './tar-writer';
import { readTar } from './tar-reader';
import { BLOCK, TarFormatError, TYPE } from './tar-format';

async function archiveOf(sources: TarSource[], report?: TarWriteReport): Promise<Buffer> {
  const blocks: Buffer[] = [];
  for await (const block of tarBlocks(sources, report ?? { skipped: [], changed: [] })) blocks.push(block);
  return Buffer.concat(blocks);
}

/** Every entry of `archive`, fed to the reader in chunks of `chunkSize` bytes. */
async function entriesOf(archive: Buffer, chunkSize = 700) {
  const chunks: Buffer[] = [];
  for (let at = 0; at < archive.length; at += chunkSize) chunks.push(archive.subarray(at, at + chunkSize));
  const entries: Array<{ path: string; type: string; content: string }> = [];
  for await (const entry of readTar(Readable.from(chunks))) {
    const parts: Buffer[] = [];
    for await (const chunk of entry.content()) parts.push(chunk);
    entries.push({ path: entry.path, type: entry.type, content: Buffer.concat(parts).toString('utf8') });
  }
  return entries;
}

describe('the tar writer and reader of backups', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'assistant-tar-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const longName = `files/usr_1/${'a long folder name '.repeat(8)}/notes – été.txt`;

  it('reads back what it wrote: folders, empty and multi-block files, long and non-ASCII paths (pax)', async () => {
    const big = 'x'.repeat(3 * BLOCK + 17);
    writeFileSync(join(dir, 'big.txt'), big);
    const archive = await archiveOf([
      { type: 'file', path: 'manifest.json', content: Buffer.from('{}') },
      { type: 'directory', path: 'tools' },
      { type: 'file', path: 'tools/empty.js', content: Buffer.alloc(0) },
      { type: 'file', path: 'tools/big.txt', from: join(dir, 'big.txt') },
      { type: 'file', path: longName, content: Buffer.from('bonjour') },
    ]);
    expect(archive.length % BLOCK).toBe(0);
    // Read whole, and in chunks that cut through headers and contents.
    for (const chunkSize of [archive.length, 700, 1]) {
      expect(await entriesOf(archive, chunkSize)).toEqual([
        { path: 'manifest.json', type: TYPE.file, content: '{}' },
        { path: 'tools/', type: TYPE.directory, content: '' },
        { path: 'tools/empty.js', type: TYPE.file, content: '' },
        { path: 'tools/big.txt', type: TYPE.file, content: big },
        { path: longName, type: TYPE.file, content: 'bonjour' },
      ]);
    }
  });

  it('writes an archive that the system tar lists and extracts as it is', async () => {
    const archive = await archiveOf([
      { type: 'directory', path: 'files' },
      { type: 'file', path: longName, content: Buffer.from('bonjour') },
    ]);
    writeFileSync(join(dir, 'a.tar'), archive);
    const listed = execFileSync('tar', ['-tf', join(dir, 'a.tar')], { encoding: 'utf8' });
    expect(listed.trim().split('\n')).toEqual(['files/', longName]);
    mkdirSync(join(dir, 'out'));
    execFileSync('tar', ['-xf', join(dir, 'a.tar'), '-C', join(dir, 'out')]);
    expect(execFileSync('cat', [join(dir, 'out', longName)], { encoding: 'utf8' })).toBe('bonjour');
  });

  it('leaves out a file that is gone or is a link by its turn, and reports it', async () => {
    writeFileSync(join(dir, 'outside.txt'), 'not for the archive');
    symlinkSync(join(dir, 'outside.txt'), join(dir, 'link.txt'));
    const report: TarWriteReport = { skipped: [], changed: [] };
    const archive = await archiveOf(
      [
        { type: 'file', path: 'files/gone.txt', from: join(dir, 'gone.txt') },
        { type: 'file', path: 'files/link.txt', from: join(dir, 'link.txt') },
        { type: 'file', path: 'files/kept.txt', content: Buffer.from('kept') },
      ],
      report,
    );
    expect(report.skipped).toEqual(['files/gone.txt', 'files/link.txt']);
    expect((await entriesOf(archive)).map((e) => e.path)).toEqual(['files/kept.txt']);
  });

  it('refuses an archive cut short, a damaged header, and a pax header larger than 64 KiB', async () => {
    const archive = await archiveOf([
      { type: 'file', path: 'a.txt', content: Buffer.from('a'.repeat(2000)) },
    ]);
    await expect(entriesOf(archive.subarray(0, 1024))).rejects.toThrow(/ends inside a\.txt/);
    await expect(entriesOf(archive.subarray(0, 2048 + BLOCK))).rejects.toThrow(/ends before its end marker/);
    const damaged = Buffer.from(archive);
    damaged[3] ^= 1;
    await expect(entriesOf(damaged)).rejects.toThrow(/checksum/);
    const hugePax = await archiveOf([
      { type: 'file', path: `files/${'ü'.repeat(40_000)}`, content: Buffer.from('x') },
    ]);
    await expect(entriesOf(hugePax)).rejects.toThrow(TarFormatError);
    await expect(entriesOf(Buffer.from('not a tar archive'.padEnd(BLOCK, '!')))).rejects.toThrow(
      /not a tar archive/,
    );
  });
});
