import { constants, type Dirent } from 'node:fs';
import {
  lstat,
  mkdir,
  open,
  readdir,
  realpath,
  rename,
  rmdir,
  stat,
  unlink,
  type FileHandle,
} from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { FileEntry, FilesDriver, FoundFile, ReadFile } from './files.driver';
import { FileAccessError, FILE_LIMITS, looksBinary } from './files.driver';

/**
 * Opens a file that must be a regular file, without ever waiting on anything else: it is looked at (`lstat`)
 * before it is opened, opened with O_NONBLOCK (a FIFO or a device swapped in meanwhile cannot hold the open, which
 * would block one of libuv's few threads for good, and with them every file and DNS call of the process), and the
 * opened descriptor is checked again. O_NOFOLLOW: a link swapped in at the last moment is not followed.
 */
async function openRegularFile(
  full: string,
  shown: string,
  flags: number,
  mode?: number,
): Promise<FileHandle> {
  const before = await lstat(full).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' && flags & constants.O_CREAT) return undefined;
    throw error;
  });
  if (before && !before.isFile()) throw new FileAccessError(`${shown} is not a regular file`);
  const handle = await open(full, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, mode);
  if (!(await handle.stat()).isFile()) {
    await handle.close();
    throw new FileAccessError(`${shown} is not a regular file`);
  }
  return handle;
}

/** What a file system error code means, in words that fit after a path. */
const REASONS: Record<string, string> = {
  ENOENT: 'does not exist',
  ENOTDIR: 'is not a folder, or has a file where a folder should be',
  EISDIR: 'is a folder',
  EEXIST: 'exists already',
  ENOTEMPTY: 'is a folder that is not empty',
  EACCES: 'cannot be used: permission denied',
  EPERM: 'cannot be used: permission denied',
  ELOOP: 'is a link; links are not followed',
  ENAMETOOLONG: 'is too long a name',
  EINVAL: 'cannot be moved into itself',
  ENXIO: 'is not a regular file',
  EBUSY: 'is in use',
  ENOSPC: 'cannot be written: the disk is full',
  EROFS: 'cannot be changed: the folder is read-only',
};

/**
 * The error of an operation on `shown` (the path as the caller gave it, relative to the folder) in plain words. A
 * file system error names the server's absolute path, which is not for the caller (it says where the data
 * directory is, and whose folder this is): only its code is kept.
 */
function inWords(error: unknown, shown: string): Error {
  if (error instanceof FileAccessError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return new FileAccessError(
    `${shown} ${(code && REASONS[code]) ?? `could not be used (${code ?? 'unknown error'})`}`,
  );
}

/** Runs `work`, its file system errors said in words about `shown` (see `inWords`). */
async function about<T>(shown: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw inWords(error, shown);
  }
}

/**
 * A folder of this machine, with every path confined to it: a path is relative to the root; `..`, absolute
 * paths, and symbolic links that lead out of the root (anywhere along the path) are refused. Only regular files
 * are opened (see `openRegularFile`). Errors name paths as the caller gave them, never the folder's own path.
 */
export class LocalFolder implements FilesDriver {
  /** `root`: the folder's real path (links resolved), which errors never show. */
  private constructor(readonly root: string) {}

  /**
   * The folder at `root`, which must exist and be a directory (created first when `create` is set). Its errors do
   * not name it: an account's default folder is a path of the server's data directory.
   */
  static async open(root: string, create = false): Promise<LocalFolder> {
    if (!isAbsolute(root)) throw new FileAccessError(`the folder must be an absolute path, not ${root}`);
    return about('the folder', async () => {
      if (create) await mkdir(root, { recursive: true, mode: 0o700 });
      const real = await realpath(root);
      if (!(await stat(real)).isDirectory()) throw new FileAccessError('the folder is a file, not a folder');
      return new LocalFolder(real);
    });
  }

  list(path: string): Promise<FileEntry[]> {
    return about(path, async () => {
      const dir = await this.existing(path);
      const entries = await readdir(dir, { withFileTypes: true });
      const listed: FileEntry[] = [];
      for (const entry of entries
        .sort((a, b) => a.name.localeCompare(b.name))
        .slice(0, FILE_LIMITS.maxListed)) {
        listed.push(await this.describe(join(dir, entry.name), entry));
      }
      return listed;
    });
  }

  search(query: string, path: string, signal: AbortSignal): Promise<FoundFile[]> {
    return about(path, () => this.searchIn(query, path, signal));
  }

  private async searchIn(query: string, path: string, signal: AbortSignal): Promise<FoundFile[]> {
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

  read(path: string): Promise<ReadFile> {
    return about(path, () => this.readText(path));
  }

  private async readText(path: string): Promise<ReadFile> {
    const file = await this.existing(path);
    const handle = await openRegularFile(file, path, constants.O_RDONLY);
    try {
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

  write(path: string, text: string, overwrite: boolean): Promise<FileEntry> {
    return about(path, async () => {
      await this.makeFoldersOf(path);
      const target = await this.creatable(path);
      const flags =
        constants.O_WRONLY | constants.O_CREAT | (overwrite ? constants.O_TRUNC : constants.O_EXCL);
      const handle = await openRegularFile(target, path, flags, 0o600).catch(
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'EEXIST')
            throw new FileAccessError(`${path} exists already; say so to replace it`);
          throw error;
        },
      );
      try {
        await handle.writeFile(text, 'utf8');
      } finally {
        await handle.close();
      }
      return this.describe(target);
    });
  }

  move(from: string, to: string): Promise<FileEntry> {
    return about(from, async () => {
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
    });
  }

  delete(path: string): Promise<void> {
    return about(path, async () => {
      if (this.lexical(path) === this.root) throw new FileAccessError('the folder itself cannot be deleted');
      const target = await this.existing(path, { noLink: true });
      const info = await lstat(target);
      if (info.isDirectory()) await rmdir(target);
      else await unlink(target);
    });
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

  /**
   * Makes the missing folders on the way to `path` ("write … to notes/todo.txt" without a notes folder), one at a
   * time from the root down, each checked once it exists: a link among them that leads out of the root (there
   * already, or swapped in meanwhile) is refused before anything is made below it, so nothing is ever created
   * outside the root.
   */
  private async makeFoldersOf(path: string): Promise<void> {
    const full = this.lexical(path);
    if (full === this.root) return;
    let current = this.root;
    let shown = '';
    for (const name of relative(this.root, dirname(full)).split(sep).filter(Boolean)) {
      shown = shown ? `${shown}/${name}` : name;
      const next = join(current, name);
      await mkdir(next, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw inWords(error, shown);
      });
      const real = await realpath(next).catch((error: unknown) => {
        throw inWords(error, shown);
      });
      if (!this.inside(real)) throw new FileAccessError(`${path} leads outside the folder`);
      if (!(await stat(real)).isDirectory()) throw new FileAccessError(`${shown} is a file, not a folder`);
      current = real;
    }
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

  /** The first line that has every word, in a regular text file small enough to read. */
  private async matchingLine(full: string, words: string[]): Promise<string | undefined> {
    const info = await lstat(full);
    if (!info.isFile() || info.size > FILE_LIMITS.maxSearchedBytes) return undefined;
    const handle = await openRegularFile(full, '', constants.O_RDONLY).catch(() => undefined);
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
