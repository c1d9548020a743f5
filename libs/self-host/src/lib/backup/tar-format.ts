/**
 * The POSIX tar format (pax interchange, as `tar` on any system reads it), to the extent a backup needs: regular
 * files and folders, with a pax `path` record for a name that is long or not ASCII and a `size` record for a file
 * of 8 GiB or more. Shared by the writer and the reader, so that both agree on every offset.
 */

export const BLOCK = 512;

/** Entry types, by their type flag. */
export const TYPE = { file: '0', oldFile: '\0', directory: '5', paxHeader: 'x' } as const;

/** What the other type flags are, for a message that names what an archive held. */
const OTHER_TYPES: Record<string, string> = {
  '1': 'a hard link',
  '2': 'a symbolic link',
  '3': 'a character device',
  '4': 'a block device',
  '6': 'a FIFO',
  '7': 'a contiguous file',
  g: 'a global pax header',
  L: 'a GNU long name',
  K: 'a GNU long link name',
};

export function describeType(flag: string): string {
  if (flag === TYPE.file || flag === TYPE.oldFile) return 'a file';
  if (flag === TYPE.directory) return 'a folder';
  return OTHER_TYPES[flag] ?? `an entry of type ${JSON.stringify(flag)}`;
}

/** Header fields: [offset, length]. */
const FIELD = {
  name: [0, 100],
  mode: [100, 8],
  uid: [108, 8],
  gid: [116, 8],
  size: [124, 12],
  mtime: [136, 12],
  checksum: [148, 8],
  type: [156, 1],
  linkName: [157, 100],
  magic: [257, 6],
  version: [263, 2],
  prefix: [345, 155],
} as const;

/** The largest size the 11 octal digits of a header hold; larger sizes go in a pax record. */
export const MAX_HEADER_SIZE = 0o77777777777;

export interface HeaderFields {
  /** At most 100 bytes; a longer or non-ASCII name goes in a pax record before it. */
  name: string;
  type: string;
  size: number;
  mode: number;
  mtime: Date;
}

export function encodeHeader(fields: HeaderFields): Buffer {
  const block = Buffer.alloc(BLOCK);
  const put = ([offset, length]: readonly [number, number], text: string) =>
    block.write(text, offset, length, 'utf8');
  const octal = (field: readonly [number, number], value: number) =>
    put(field, `${value.toString(8).padStart(field[1] - 1, '0')}\0`);
  put(FIELD.name, fields.name);
  octal(FIELD.mode, fields.mode);
  octal(FIELD.uid, 0);
  octal(FIELD.gid, 0);
  octal(FIELD.size, fields.size);
  octal(FIELD.mtime, Math.max(0, Math.floor(fields.mtime.getTime() / 1000)));
  put(FIELD.type, fields.type);
  put(FIELD.magic, 'ustar\0');
  put(FIELD.version, '00');
  put(FIELD.checksum, `${checksumOf(block).toString(8).padStart(6, '0')}\0 `);
  return block;
}

/** Why a header or an archive cannot be read. */
export class TarFormatError extends Error {}

export interface DecodedHeader {
  /** The ustar name (prefix/name); a pax `path` record before it overrides it. */
  name: string;
  type: string;
  size: number;
}

/** A header block, or null for a zero block (the end of the archive). */
export function decodeHeader(block: Buffer): DecodedHeader | null {
  if (block.every((byte) => byte === 0)) return null;
  const magic = text(block, FIELD.magic);
  if (magic !== 'ustar' && magic !== 'ustar  ') throw new TarFormatError('not a tar archive');
  if (readOctal(block, FIELD.checksum, 'checksum') !== checksumOf(block)) {
    throw new TarFormatError('a header is damaged (its checksum does not match)');
  }
  const name = text(block, FIELD.name);
  const prefix = text(block, FIELD.prefix);
  return {
    name: prefix ? `${prefix}/${name}` : name,
    type: String.fromCharCode(block[FIELD.type[0]]),
    size: readOctal(block, FIELD.size, 'size'),
  };
}

/** Pax records (`<length> <key>=<value>\n`), as one header body. */
export function encodePaxRecords(records: Record<string, string>): Buffer {
  return Buffer.concat(
    Object.entries(records).map(([key, value]) => {
      const rest = Buffer.byteLength(` ${key}=${value}\n`);
      let length = rest + 1;
      while (length !== rest + String(length).length) length = rest + String(length).length;
      return Buffer.from(`${length} ${key}=${value}\n`, 'utf8');
    }),
  );
}

export function decodePaxRecords(body: Buffer): Map<string, string> {
  const records = new Map<string, string>();
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    const length = space > at ? Number(body.toString('latin1', at, space)) : NaN;
    if (!Number.isSafeInteger(length) || length <= 0 || at + length > body.length) {
      throw new TarFormatError('a pax header is damaged');
    }
    const record = body.toString('utf8', space + 1, at + length - 1);
    const equals = record.indexOf('=');
    if (equals <= 0 || body[at + length - 1] !== 0x0a) throw new TarFormatError('a pax header is damaged');
    records.set(record.slice(0, equals), record.slice(equals + 1));
    at += length;
  }
  return records;
}

/** How many zero bytes follow `size` bytes of content to fill its last block. */
export function paddingAfter(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}

function checksumOf(block: Buffer): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) {
    const inChecksum = i >= FIELD.checksum[0] && i < FIELD.checksum[0] + FIELD.checksum[1];
    sum += inChecksum ? 0x20 : block[i];
  }
  return sum;
}

function text(block: Buffer, [offset, length]: readonly [number, number]): string {
  const field = block.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return field.toString('utf8', 0, end === -1 ? length : end);
}

function readOctal(block: Buffer, field: readonly [number, number], what: string): number {
  const digits = text(block, field).trim();
  if (!/^[0-7]{1,12}$/.test(digits)) throw new TarFormatError(`a header's ${what} is not a number`);
  return parseInt(digits, 8);
}
