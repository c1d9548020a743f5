import { constants, type Dirent } from 'node:fs';
import { lstat, mkdir, open, readdir, realpath, rename, rmdir, stat, unlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { FileEntry, FilesDriver, FoundFile, ReadFile } from './files.driver';
import { FileAccessError, FILE_LIMITS, looksBinary } from './files.driver';

/**
 * A folder of this machine, with every path confined to it: a path is relative to the root; `..`, absolute
 * paths, and symbolic links that lead out of the root (anywhere along the path) are refused. Writes open the
 * file with O_NOFOLLOW, so a link swapped in at the last moment is not followed.
 */
export class LocalFolder implements FilesDriver {
  private constructor(private readonly root: string) {}

  /** The folder at `root`, which must exist and be a directory (created first when `create` is set). */
  static async open(root: string, create = false): Promise<LocalFolder> {
    if (!isAbsolute(root)) throw new FileAccessError(`the folder must be an absolute path, not ${root}`);
    if (create) await mkdir(root, { recursive: true, mode: 0o700 });
    const real = await realpath(root).catch(() => {
      throw new FileAccessError(`the folder ${root} does not exist`);
    });
    if (!(await stat(real)).isDirectory()) throw new FileAccessError(`${root} is not a folder`);
    return new LocalFolder(real);
  }

  async list(path: string): Promise<FileEntry[]> {
    const dir = await this.existing(path);
    const entries = await readdir(dir, { withFileTypes: true });
    const listed: FileEntry[] = [];
    for (const entry of entries
      .sort((a, b) => a.name.localeCompare(b.name))
      .slice(0, FILE_LIMITS.maxListed)) {
      listed.push(await this.describe(join(dir, entry.name), entry));
    }
    return listed;
  }

  async search(query: string, path: string, signal: AbortSignal): Promise<FoundFile[]> {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const found: FoundFile[] = [];
    let scanned = 0;
    const visit = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        signal.throwIfAborted();
        if (found.length >= FILE_LIMITS.maxFound || scanned >= FILE_LIMITS.maxScanned) return;
        const full = join(dir, entry.name);
        // Links are not followed while searching: they may lead anywhere.
        if (entry.isSymbolicLink()) continue;
        if (entry.isDirectory()) {
          await visit(full);
          continue;
        }
        if (!entry.isFile()) continue;
        scanned++;
        const path = this.relativeOf(full);
        if (words.every((w) => entry.name.toLowerCase().includes(w))) {
          found.push({ path, match: 'name' });
          continue;
        }
        const line = await this.matchingLine(full, words);
        if (line !== undefined) found.push({ path, match: 'content', line });
      }
    };
    await visit(await this.existing(path));
    return found;
  }

  async read(path: string): Promise<ReadFile> {
    const file = await this.existing(path);
    const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      if (!(await handle.stat()).isFile()) throw new FileAccessError(`${path} is not a file`);
      const buffer = Buffer.alloc(FILE_LIMITS.maxReadBytes + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      const bytes = buffer.subarray(0, Math.min(bytesRead, FILE_LIMITS.maxReadBytes));
      if (looksBinary(bytes)) throw new FileAccessError(`${path} is not a text file`);
      return {
        path: this.relativeOf(file),
        text: bytes.toString('utf8'),
        truncated: bytesRead > FILE_LIMITS.maxReadBytes,
      };
    } finally {
      await handle.close();
    }
  }

  async write(path: string, text: string, overwrite: boolean): Promise<FileEntry> {
    const target = await this.creatable(path);
    const flags =
      constants.O_WRONLY |
      constants.O_CREAT |
      constants.O_NOFOLLOW |
      (overwrite ? constants.O_TRUNC : constants.O_EXCL);
    const handle = await open(target, flags, 0o600).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST') throw new FileAccessError(`${path} exists already; say so to replace it`);
      throw error;
    });
    try {
      await handle.writeFile(text, 'utf8');
    } finally {
      await handle.close();
    }
    return this.describe(target);
  }

  async move(from: string, to: string): Promise<FileEntry> {
    const source = await this.existing(from, { noLink: true });
    const target = await this.creatable(to);
    if (
      await lstat(target).then(
        () => true,
        () => false,
      )
    )
      throw new FileAccessError(`${to} exists already`);
    await rename(source, target);
    return this.describe(target);
  }

  async delete(path: string): Promise<void> {
    if (this.lexical(path) === this.root) throw new FileAccessError('the folder itself cannot be deleted');
    const target = await this.existing(path, { noLink: true });
    const info = await lstat(target);
    if (info.isDirectory()) {
      await rmdir(target).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOTEMPTY') throw new FileAccessError(`${path} is a folder that is not empty`);
        throw error;
      });
    } else await unlink(target);
  }

  /** The absolute path of `path` inside the root, lexically: no `..` above the root, nothing absolute. */
  private lexical(path: string): string {
    if (path.includes('\0')) throw new FileAccessError('a path cannot contain a NUL character');
    if (isAbsolute(path)) throw new FileAccessError(`paths are relative to the folder; ${path} is absolute`);
    const full = resolve(this.root, path);
    if (!this.inside(full)) throw new FileAccessError(`${path} is outside the folder`);
    return full;
  }

  /** An existing path inside the root, links resolved and checked (or, with `noLink`, refused as the last part). */
  private async existing(path: string, options: { noLink?: boolean } = {}): Promise<string> {
    const full = this.lexical(path);
    const info = await lstat(full).catch(() => {
      throw new FileAccessError(`${path} does not exist`);
    });
    if (options.noLink && info.isSymbolicLink())
      throw new FileAccessError(`${path} is a link; links are not changed`);
    if (options.noLink) {
      const parent = await realpath(dirname(full));
      if (!this.inside(parent)) throw new FileAccessError(`${path} leads outside the folder`);
      return join(parent, basename(full));
    }
    const real = await realpath(full);
    if (!this.inside(real)) throw new FileAccessError(`${path} leads outside the folder`);
    return real;
  }

  /** A path that may not exist yet, whose folder exists inside the root (links resolved). */
  private async creatable(path: string): Promise<string> {
    const full = this.lexical(path);
    if (full === this.root) throw new FileAccessError('give a file name');
    const parent = await realpath(dirname(full)).catch(() => {
      throw new FileAccessError(`the folder of ${path} does not exist`);
    });
    if (!this.inside(parent)) throw new FileAccessError(`${path} leads outside the folder`);
    return join(parent, basename(full));
  }

  private inside(path: string): boolean {
    return path === this.root || path.startsWith(this.root + sep);
  }

  private relativeOf(full: string): string {
    return relative(this.root, full) || '.';
  }

  private async describe(full: string, entry?: Dirent): Promise<FileEntry> {
    const info = await lstat(full);
    const type = (entry ?? info).isDirectory()
      ? 'folder'
      : (entry ?? info).isSymbolicLink()
        ? 'link'
        : 'file';
    return {
      path: this.relativeOf(full),
      type,
      size: type === 'file' ? info.size : undefined,
      modified: info.mtime.toISOString(),
    };
  }

  /** The first line that has every word, in a text file small enough to read. */
  private async matchingLine(full: string, words: string[]): Promise<string | undefined> {
    const info = await stat(full);
    if (info.size > FILE_LIMITS.maxSearchedBytes) return undefined;
    const handle = await open(full, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => undefined);
    if (!handle) return undefined;
    try {
      const bytes = await handle.readFile();
      if (looksBinary(bytes)) return undefined;
      const text = bytes.toString('utf8');
      if (!words.every((w) => text.toLowerCase().includes(w))) return undefined;
      const line = text.split('\n').find((l) => words.some((w) => l.toLowerCase().includes(w))) ?? '';
      return line.trim().slice(0, 200);
    } finally {
      await handle.close();
    }
  }
}
