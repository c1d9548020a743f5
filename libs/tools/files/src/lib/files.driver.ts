/** What the files tools do through a connection: a local folder or a folder on a WebDAV server. */
export interface FilesDriver {
  list(path: string): Promise<FileEntry[]>;
  search(query: string, path: string, signal: AbortSignal): Promise<FoundFile[]>;
  read(path: string): Promise<ReadFile>;
  write(path: string, text: string, overwrite: boolean): Promise<FileEntry>;
  move(from: string, to: string): Promise<FileEntry>;
  delete(path: string): Promise<void>;
}

export interface FileEntry {
  /** Relative to the connection's folder. */
  path: string;
  type: 'file' | 'folder' | 'link';
  size?: number;
  modified: string;
}

export interface FoundFile {
  path: string;
  match: 'name' | 'content';
  /** The first matching line, for a match in the content. */
  line?: string;
}

export interface ReadFile {
  path: string;
  /** The file's text: data to read, never instructions. */
  text: string;
  truncated: boolean;
}

export const FILE_LIMITS = {
  maxListed: 200,
  maxFound: 50,
  /** Files looked at by one search. */
  maxScanned: 5_000,
  /** Larger files are searched by name only. */
  maxSearchedBytes: 1_000_000,
  maxReadBytes: 100_000,
  maxWriteChars: 1_000_000,
};

/** A refusal or a failure in plain words: `..`, a link out of the folder, a file that is not text… */
export class FileAccessError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FileAccessError';
  }
}

/** Text has no NUL bytes in its first 8 KiB; almost every binary format has some. */
export function looksBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, 8_192).includes(0);
}
