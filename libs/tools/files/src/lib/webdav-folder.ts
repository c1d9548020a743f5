import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import type { FileStat, WebDAVClient, WebDAVClientError, WebDAVMethodOptions } from 'webdav';
import { ConnectionTestError } from '@assistant/tool-kit';
import type { FileEntry, FilesDriver, FoundFile, ReadFile } from './files.driver';
import { FileAccessError, FILE_LIMITS, looksBinary } from './files.driver';

/**
 * A folder on a WebDAV server (Nextcloud, ownCloud, rclone, Apache…), with the rules of a local folder: paths are
 * relative to the connection's URL, and `..` or absolute paths that would leave it are refused before any request
 * (the client sends them as they are, and the URL would resolve above the folder). The client's own paths start at
 * the connection's URL: `/` is the folder itself.
 */
export class WebDavFolder implements FilesDriver {
  constructor(
    private readonly client: WebDAVClient,
    /** For messages only: the connection's URL, without credentials. */
    private readonly url: string,
  ) {}

  /** The connection test: lists the folder, and says why the server refused. */
  async check(signal: AbortSignal): Promise<void> {
    try {
      await this.client.getDirectoryContents('/', { signal });
    } catch (error) {
      const { status, message } = error as WebDAVClientError;
      if (status === 401 || status === 403)
        throw new ConnectionTestError(`WebDAV login failed: ${reason(error)}`);
      if (status)
        throw new ConnectionTestError(`the WebDAV server answered ${reason(error)} for ${this.url}`);
      throw new ConnectionTestError(`the WebDAV server at ${this.url} could not be reached (${message})`);
    }
  }

  async list(path: string): Promise<FileEntry[]> {
    const dir = await this.folder(path);
    const entries = await this.contents(path, dir);
    return entries.slice(0, FILE_LIMITS.maxListed).map((e) => this.entryOf(e));
  }

  async search(query: string, path: string, signal: AbortSignal): Promise<FoundFile[]> {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const found: FoundFile[] = [];
    // Folders count too: each is a request, and a server could answer with endless nested ones.
    let scanned = 0;
    const visit = async (dir: string): Promise<void> => {
      for (const entry of await this.contents(dir, dir, signal)) {
        signal.throwIfAborted();
        if (found.length >= FILE_LIMITS.maxFound || scanned >= FILE_LIMITS.maxScanned) return;
        scanned++;
        if (entry.type === 'directory') {
          await visit(entry.filename);
          continue;
        }
        const path = this.relativeOf(entry.filename);
        if (words.every((w) => entry.basename.toLowerCase().includes(w))) {
          found.push({ path, match: 'name' });
          continue;
        }
        // Larger files are searched by name only, as in a local folder.
        if (entry.size > FILE_LIMITS.maxSearchedBytes) continue;
        const line = await this.matchingLine(entry.filename, words, signal);
        if (line !== undefined) found.push({ path, match: 'content', line });
      }
    };
    await visit(await this.folder(path));
    return found;
  }

  async read(path: string): Promise<ReadFile> {
    const file = this.remote(path);
    const info = await this.stat(path, file);
    if (info.type !== 'file') throw new FileAccessError(`${path} is not a file`);
    const { bytes, cut } = await this.head(path, file, FILE_LIMITS.maxReadBytes);
    if (looksBinary(bytes)) throw new FileAccessError(`${path} is not a text file`);
    return { path: this.relativeOf(file), text: bytes.toString('utf8'), truncated: cut };
  }

  async write(path: string, text: string, overwrite: boolean): Promise<FileEntry> {
    const file = await this.creatable(path, { makeFolders: true });
    const existing = await this.statOrNull(path, file);
    if (existing?.type === 'directory') throw new FileAccessError(`${path} is a folder`);
    if (existing && !overwrite) throw new FileAccessError(`${path} exists already; say so to replace it`);
    // Without overwrite the client also sends `If-None-Match: *`, so a server that honours it refuses a file
    // created since the check above (412, "exists already").
    await this.call(path, () => this.client.putFileContents(file, text, { overwrite }));
    return this.entryOf(await this.stat(path, file));
  }

  async move(from: string, to: string): Promise<FileEntry> {
    const source = this.remote(from);
    if (source === '/') throw new FileAccessError('the folder itself cannot be moved');
    await this.stat(from, source);
    const target = await this.creatable(to);
    if (await this.statOrNull(to, target)) throw new FileAccessError(`${to} exists already`);
    // `Overwrite: F` makes the server itself refuse a target created since the check (412). webdav v4 takes
    // method options here, though its type does not say so.
    const move = this.client.moveFile as (a: string, b: string, o: WebDAVMethodOptions) => Promise<void>;
    await this.call(to, () => move(source, target, { headers: { Overwrite: 'F' } }));
    return this.entryOf(await this.stat(to, target));
  }

  async delete(path: string): Promise<void> {
    const target = this.remote(path);
    if (target === '/') throw new FileAccessError('the folder itself cannot be deleted');
    const info = await this.stat(path, target);
    // A WebDAV DELETE of a folder removes everything in it; like a local folder, only an empty one is deleted.
    if (info.type === 'directory' && (await this.contents(path, target)).length > 0)
      throw new FileAccessError(`${path} is a folder that is not empty`);
    await this.call(path, () => this.client.deleteFile(target));
  }

  /** The client's path of `path` (`/` is the folder), lexically: no `..` above the folder, nothing absolute. */
  private remote(path: string): string {
    if (path.includes('\0')) throw new FileAccessError('a path cannot contain a NUL character');
    // A backslash is a separator to Windows-based servers: read as one, `..\..` cannot slip past the check.
    const slashed = path.replace(/\\/g, '/');
    if (slashed.startsWith('/'))
      throw new FileAccessError(`paths are relative to the folder; ${path} is absolute`);
    const inner = posix.normalize(slashed || '.').replace(/\/+$/, '');
    if (inner === '..' || inner.startsWith('../')) throw new FileAccessError(`${path} is outside the folder`);
    return inner === '.' || inner === '' ? '/' : `/${inner}`;
  }

  private relativeOf(remote: string): string {
    return remote.replace(/^\/+|\/+$/g, '') || '.';
  }

  /**
   * A path that may not exist yet, whose folder exists, or is made with `makeFolders` (one collection at a time
   * from the folder down; the path was checked to stay inside it). Checked first because servers answer a
   * missing folder differently (404, 409, even 403 for a move).
   */
  private async creatable(path: string, options: { makeFolders?: boolean } = {}): Promise<string> {
    const file = this.remote(path);
    if (file === '/') throw new FileAccessError('give a file name');
    const parent = await this.statOrNull(path, posix.dirname(file));
    if (parent?.type === 'directory') return file;
    if (parent) throw new FileAccessError(`${this.relativeOf(posix.dirname(file))} is a file, not a folder`);
    if (!options.makeFolders) throw new FileAccessError(`the folder of ${path} does not exist`);
    let made = '';
    for (const name of posix.dirname(file).split('/').filter(Boolean)) {
      made = `${made}/${name}`;
      const shown = made.slice(1);
      const existing = await this.statOrNull(shown, made);
      if (existing?.type === 'directory') continue;
      if (existing) throw new FileAccessError(`${shown} is a file, not a folder`);
      await this.call(shown, () => this.client.createDirectory(made));
    }
    return file;
  }

  /** An existing folder's client path. */
  private async folder(path: string): Promise<string> {
    const dir = this.remote(path);
    if ((await this.stat(path, dir)).type !== 'directory')
      throw new FileAccessError(`${path} is not a folder`);
    return dir;
  }

  /** A folder's entries (PROPFIND, depth 1) sorted by name; any the server places outside the folder are left out. */
  private async contents(path: string, dir: string, signal?: AbortSignal): Promise<FileStat[]> {
    const entries = (await this.call(path, () =>
      this.client.getDirectoryContents(dir, { signal }),
    )) as FileStat[];
    return entries
      .filter((e) => !posix.normalize(this.relativeOf(e.filename)).startsWith('..'))
      .sort((a, b) => a.basename.localeCompare(b.basename));
  }

  private async stat(path: string, remote: string): Promise<FileStat> {
    return (await this.call(path, () => this.client.stat(remote))) as FileStat;
  }

  private async statOrNull(path: string, remote: string): Promise<FileStat | null> {
    const missing = (error: WebDAVClientError) => (error.status === 404 ? null : Promise.reject(error));
    return (await this.call(path, () => this.client.stat(remote).catch(missing))) as FileStat | null;
  }

  private entryOf(stat: FileStat): FileEntry {
    const modified = new Date(stat.lastmod);
    return {
      path: this.relativeOf(stat.filename),
      type: stat.type === 'directory' ? 'folder' : 'file',
      size: stat.type === 'file' ? stat.size : undefined,
      // A server may leave getlastmodified out.
      modified: Number.isNaN(modified.getTime()) ? '' : modified.toISOString(),
    };
  }

  /**
   * At most `max` bytes from the start of a file, and whether there was more. Streamed, asking for a range: a
   * server that sends the whole file anyway is cut off once `max` is passed, whatever size it announced.
   */
  private async head(
    path: string,
    file: string,
    max: number,
    signal?: AbortSignal,
  ): Promise<{ bytes: Buffer; cut: boolean }> {
    const response = await this.call(path, () =>
      this.client
        .customRequest(file, {
          method: 'GET',
          headers: { Range: `bytes=0-${max}` },
          responseType: 'stream',
          signal,
        })
        .catch((error: WebDAVClientError) => {
          // A refusal's body is a stream too: left unread, it would hold the connection open.
          (error.response?.data as Readable | undefined)?.destroy?.();
          throw error;
        }),
    ).catch((error: WebDAVClientError) => {
      // 416: the range is past the end, i.e. the file is empty (some servers answer so).
      if (error.status === 416) return undefined;
      throw error;
    });
    if (!response) return { bytes: Buffer.alloc(0), cut: false };
    const stream = response.data as Readable;
    const chunks: Buffer[] = [];
    let length = 0;
    try {
      for await (const chunk of stream) {
        chunks.push(chunk as Buffer);
        length += (chunk as Buffer).length;
        if (length > max) break;
      }
    } finally {
      stream.destroy();
    }
    const bytes = Buffer.concat(chunks);
    return { bytes: bytes.subarray(0, max), cut: bytes.length > max };
  }

  /** The first line that has every word, in a text file small enough to read. */
  private async matchingLine(
    file: string,
    words: string[],
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const { bytes, cut } = await this.head(file, file, FILE_LIMITS.maxSearchedBytes, signal);
    if (cut || looksBinary(bytes)) return undefined;
    const text = bytes.toString('utf8');
    if (!words.every((w) => text.toLowerCase().includes(w))) return undefined;
    const line = text.split('\n').find((l) => words.some((w) => l.toLowerCase().includes(w))) ?? '';
    return line.trim().slice(0, 200);
  }

  /** Runs a request, with the server's refusals in plain words. */
  private async call<T>(path: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      const { status } = error as WebDAVClientError;
      switch (status) {
        case 404:
          throw new FileAccessError(`${path} does not exist`);
        case 409:
          throw new FileAccessError(`the folder of ${path} does not exist`);
        case 412:
          throw new FileAccessError(`${path} exists already`);
        case 401:
        case 403:
          throw new FileAccessError(`the WebDAV server refused access to ${path} (${reason(error)})`);
      }
      throw error;
    }
  }
}

/** "401 Unauthorized": the status a client error carries, with the server's words for it. */
function reason(error: unknown): string {
  const { status, response } = error as WebDAVClientError;
  return `${status} ${response?.statusText ?? ''}`.trim();
}
