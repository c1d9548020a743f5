import { BLOCK, decodeHeader, decodePaxRecords, paddingAfter, TarFormatError, TYPE } from './tar-format';

export interface TarEntry {
  /** As the archive names it (a pax `path` record, else the header's name): not checked in any way. */
  path: string;
  /** The type flag (`TYPE` of tar-format.ts); anything but a file or a folder is for the caller to refuse. */
  type: string;
  size: number;
  /** The content in chunks, read from the archive as they are asked for; what is not read is skipped. */
  content(): AsyncGenerator<Buffer>;
}

/** A pax header is held whole to be read; an archive cannot make that unbounded. */
const MAX_PAX_HEADER = 64 * 1024;

/**
 * The entries of a tar archive, read from its (uncompressed) bytes as they come: nothing is held whole but
 * headers. Pax headers are applied to the entry they precede and not yielded. Throws TarFormatError on anything
 * that is not a well-formed archive, including one that ends early.
 */
export async function* readTar(bytes: AsyncIterable<Buffer>): AsyncGenerator<TarEntry> {
  const input = new ChunkReader(bytes[Symbol.asyncIterator]());
  let pax: Map<string, string> | undefined;
  for (;;) {
    const block = await input.exactly(BLOCK);
    if (!block) throw new TarFormatError('it ends before its end marker (the file is incomplete)');
    const header = decodeHeader(block);
    if (!header) return;
    if (header.type === TYPE.paxHeader) {
      if (header.size > MAX_PAX_HEADER) throw new TarFormatError('a pax header is larger than 64 KiB');
      const body = await input.exactly(header.size + paddingAfter(header.size));
      if (!body) throw new TarFormatError('it ends inside a pax header (the file is incomplete)');
      pax = decodePaxRecords(body.subarray(0, header.size));
      continue;
    }
    const path = pax?.get('path') ?? header.name;
    const size = pax?.has('size') ? Number(pax.get('size')) : header.size;
    pax = undefined;
    if (!Number.isSafeInteger(size) || size < 0)
      throw new TarFormatError(`the size of ${path} is not a number`);

    let unread = size;
    const readContent = async function* (): AsyncGenerator<Buffer> {
      while (unread > 0) {
        const chunk = await input.some(unread);
        if (!chunk) throw new TarFormatError(`it ends inside ${path} (the file is incomplete)`);
        unread -= chunk.length;
        yield chunk;
      }
    };
    yield { path, type: header.type, size, content: readContent };
    for await (const skipped of readContent()) void skipped;
    if (!(await input.exactly(paddingAfter(size)))) {
      throw new TarFormatError(`it ends inside ${path} (the file is incomplete)`);
    }
  }
}

/** Reads a stream of chunks by byte counts. */
class ChunkReader {
  private pending: Buffer = Buffer.alloc(0);
  private ended = false;

  constructor(private readonly source: AsyncIterator<Buffer>) {}

  /** Between 1 and `max` bytes, or null at the end of the input. */
  async some(max: number): Promise<Buffer | null> {
    while (this.pending.length === 0) {
      if (this.ended) return null;
      const next = await this.source.next();
      if (next.done) this.ended = true;
      else this.pending = next.value;
    }
    const part = this.pending.subarray(0, max);
    this.pending = this.pending.subarray(part.length);
    return part;
  }

  /** Exactly `count` bytes, or null when the input ends first. */
  async exactly(count: number): Promise<Buffer | null> {
    const parts: Buffer[] = [];
    let have = 0;
    while (have < count) {
      const part = await this.some(count - have);
      if (!part) return null;
      parts.push(part);
      have += part.length;
    }
    return Buffer.concat(parts, count);
  }
}
