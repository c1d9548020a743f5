import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { BLOCK, encodeHeader, encodePaxRecords, MAX_HEADER_SIZE, paddingAfter, TYPE } from './tar-format';

/** What goes into an archive, in order: a folder, bytes in hand, or a file on disk read when its turn comes. */
export type TarSource =
  | { type: 'directory'; path: string }
  | { type: 'file'; path: string; content: Buffer }
  | { type: 'file'; path: string; from: string };

/** Files on disk that did not go in as they were when the archive was begun. */
export interface TarWriteReport {
  /** Gone before their turn, or no longer a regular file: left out. */
  skipped: string[];
  /** Shorter or longer when read than when their size was taken: their content may be a mix of two versions. */
  changed: string[];
}

/** Everything in the archive is its owner's alone once restored. */
const FILE_MODE = 0o600;
const DIRECTORY_MODE = 0o700;
const CHUNK = 64 * 1024;

/**
 * The blocks of a tar archive of `sources` (pipe them through gzip into a file). Files on disk are streamed, never
 * held whole; one that is a link, a FIFO or a device by the time it is opened is left out (`O_NOFOLLOW`,
 * `O_NONBLOCK`: neither followed nor waited on).
 */
export async function* tarBlocks(
  sources: Iterable<TarSource> | AsyncIterable<TarSource>,
  report: TarWriteReport,
): AsyncGenerator<Buffer> {
  for await (const source of sources) {
    if (source.type === 'directory') {
      yield* headerBlocks(`${source.path}/`, TYPE.directory, 0, new Date());
    } else if ('content' in source) {
      yield* headerBlocks(source.path, TYPE.file, source.content.length, new Date());
      yield source.content;
      yield Buffer.alloc(paddingAfter(source.content.length));
    } else {
      yield* fileBlocks(source.path, source.from, report);
    }
  }
  yield Buffer.alloc(2 * BLOCK);
}

async function* fileBlocks(path: string, from: string, report: TarWriteReport): AsyncGenerator<Buffer> {
  let handle: FileHandle;
  try {
    handle = await open(from, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP') {
      report.skipped.push(path);
      return;
    }
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      report.skipped.push(path);
      return;
    }
    yield* headerBlocks(path, TYPE.file, stat.size, stat.mtime);
    let left = stat.size;
    while (left > 0) {
      const chunk = Buffer.alloc(Math.min(CHUNK, left));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      yield chunk.subarray(0, bytesRead);
      left -= bytesRead;
    }
    // The header said how long it is: a file that shrank meanwhile is filled up, one that grew is cut.
    if (left > 0) {
      report.changed.push(path);
      yield Buffer.alloc(left);
    } else if ((await handle.read(Buffer.alloc(1), 0, 1, null)).bytesRead > 0) {
      report.changed.push(path);
    }
    yield Buffer.alloc(paddingAfter(stat.size));
  } finally {
    await handle.close();
  }
}

/** The header of an entry, after a pax header when its path or size does not fit a plain one. */
function* headerBlocks(path: string, type: string, size: number, mtime: Date): Generator<Buffer> {
  const plainPath = /^[\x20-\x7e]{1,100}$/.test(path);
  const records: Record<string, string> = {};
  if (!plainPath) records['path'] = path;
  if (size > MAX_HEADER_SIZE) records['size'] = String(size);
  if (Object.keys(records).length > 0) {
    const body = encodePaxRecords(records);
    yield encodeHeader({
      name: 'PaxHeader',
      type: TYPE.paxHeader,
      size: body.length,
      mode: FILE_MODE,
      mtime,
    });
    yield body;
    yield Buffer.alloc(paddingAfter(body.length));
  }
  yield encodeHeader({
    // A reader that knows no pax sees a shortened ASCII name; ours and every modern tar read the record.
    name: plainPath ? path : path.replace(/[^\x20-\x7e]/g, '_').slice(-100),
    type,
    size: size > MAX_HEADER_SIZE ? 0 : size,
    mode: type === TYPE.directory ? DIRECTORY_MODE : FILE_MODE,
    mtime,
  });
}
