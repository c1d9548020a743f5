import { hash } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

// A compile cache for the Node versions without module.enableCompileCache (Node 20; 22.1 and later have their
// own, which bin/run.js turns on instead). Compiling the server's ~2,000 modules was ~30% of the CPU profile of
// `assistant serve`'s start: this keeps V8's code for each of them in one file, written once the start is over
// (so that it holds every function the start ran, not only the top-level code), and hands it back to V8 on the
// next start (~80 ms less CPU of ~610 on a 2-core Xeon).
//
// Safe by construction: a module's code is used only for the same file at the same size, modification and change
// times (a rewrite changes its ctime, which cannot be set back; the file is looked at just after Node read it, so
// only a rewrite in that instant, to the same length, could slip by), and V8 itself refuses code of another V8
// version or flags. The cache file is replaced atomically (written aside, then renamed), carries a SHA-256 of its content,
// and lives in the user's own cache folder (not a shared temp folder whose files another user could plant); a
// missing, foreign, corrupt or stale cache only means compiling as without it.

/** What the cache needs of Node's CommonJS loader (lib/internal/modules/cjs/loader.js), beyond its typings. */
interface LoadedModule {
  exports: unknown;
  require(id: string): unknown;
  _compile(content: string, filename: string, format?: string): unknown;
}
interface Loader {
  prototype: LoadedModule;
  wrap(source: string): string;
  _resolveFilename(request: string, parent: LoadedModule, isMain: boolean, options?: unknown): string;
  _resolveLookupPaths(request: string, parent: LoadedModule): string[] | null;
  _extensions: NodeJS.RequireExtensions;
  _cache: NodeJS.Dict<NodeModule>;
}
const loader = Module as unknown as Loader;

/** One module's code in the file: which file, in which state (its key), and where its bytes are. */
type Entry = [filename: string, key: string, offset: number, length: number];

/** The file: a 4-byte length, then a JSON header naming the entries and the blob's digest, then the blob. */
interface Header {
  digest: string;
  entries: Entry[];
}

class CompileCache {
  private readonly stored = new Map<string, { key: string; data: Buffer }>();
  /** The scripts compiled by this process, whose code `save` writes. */
  private readonly compiled = new Map<string, { key: string; script: Script }>();
  private unsaved = false;

  constructor(private readonly file: string) {
    for (const [filename, key, data] of readCacheFile(file)) this.stored.set(filename, { key, data });
  }

  /**
   * The module's wrapper function, from its stored code when that is still the module's; undefined for a module
   * that may call import(), which Node compiles itself: on Node 20, a script compiled from code another process
   * made loses its dynamic-import callback, and its import() then fails. The test is on the word `import`, which
   * every import() has (a keyword cannot be written with escapes); where the word is only in a comment or a
   * string, the module is merely compiled as without the cache.
   */
  compile(content: string, filename: string): ((...args: unknown[]) => unknown) | undefined {
    if (/\bimport\b/.test(content)) return undefined;
    const key = fileKey(filename);
    const stored = this.stored.get(filename);
    const script = new Script(loader.wrap(content), {
      filename,
      cachedData: stored?.key === key ? stored.data : undefined,
    });
    if (stored?.key !== key || script.cachedDataRejected !== false) this.unsaved = true;
    this.compiled.set(filename, { key, script });
    return script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
  }

  /** Writes the code of every module compiled so far, when some of it was not in the file. */
  save(): void {
    if (!this.unsaved) return;
    this.unsaved = false;
    // Modules this process did not load keep their stored code, so that other starts still find theirs.
    const modules = new Map(this.stored);
    for (const [filename, { key, script }] of this.compiled)
      modules.set(filename, { key, data: script.createCachedData() });
    writeCacheFile(this.file, modules);
  }
}

/** Saves the installed cache and puts Node's own compilation back; undefined when none is installed. */
let finish: (() => void) | undefined;

/**
 * Compiles every CommonJS module loaded from now on through a cache kept in
 * `$XDG_CACHE_HOME/assistant/compile-cache/<name>-<node version>-<arch>` (one file per command, so that commands
 * do not overwrite each other's), until finishCompileCache or the process's exit. Does nothing when the cache
 * folder is not this user's own, or when source maps are on (their stack traces need Node's own compilation).
 * Install it from the main module (bin/run.js) and load the rest synchronously from its top level: Node's stat
 * cache for resolving modules lives as long as the outermost module that Node itself compiled runs.
 */
export function installCompileCache(name: string, env: NodeJS.ProcessEnv = process.env): void {
  if (finish || process.sourceMapsEnabled) return;
  const folder = ownCacheFolder(
    join(env['XDG_CACHE_HOME'] || join(homedir(), '.cache'), 'assistant', 'compile-cache'),
  );
  if (!folder) return;
  const cache = new CompileCache(join(folder, `${name}-${process.version}-${process.arch}`));
  const nodeCompile = loader.prototype._compile;
  loader.prototype._compile = function (this: LoadedModule, content, filename, format) {
    // ES modules, modules that may call import(), and sources V8 cannot compile as a CommonJS wrapper (Node
    // then detects ES syntax or reports the error) stay Node's.
    if (format === 'module') return nodeCompile.call(this, content, filename, format);
    let wrapper;
    try {
      wrapper = cache.compile(content, filename);
    } catch {
      wrapper = undefined;
    }
    if (!wrapper) return nodeCompile.call(this, content, filename, format);
    return wrapper.call(this.exports, this.exports, requireFor(this), this, filename, dirname(filename));
  };
  finish = () => {
    finish = undefined;
    process.off('exit', finishCompileCache);
    loader.prototype._compile = nodeCompile;
    cache.save();
  };
  process.once('exit', finishCompileCache);
}

/**
 * Saves the installed cache (when it has code to add) and stops caching, which frees what the cache held (the
 * file it read, ~5 MB for the server, and the scripts). A server calls it once it has started: the cache is for the start, and the next start then
 * finds the code even if this process is killed rather than exits.
 */
export function finishCompileCache(): void {
  finish?.();
}

/** The `require` a module's code is given, as Node's makeRequireFunction makes it. */
function requireFor(module: LoadedModule): NodeJS.Require {
  const require = ((id: string) => module.require(id)) as NodeJS.Require;
  const resolve = ((request: string, options?: unknown) =>
    loader._resolveFilename(request, module, false, options)) as NodeJS.RequireResolve;
  resolve.paths = (request: string) => loader._resolveLookupPaths(request, module);
  require.resolve = resolve;
  require.main = process.mainModule;
  require.extensions = loader._extensions;
  require.cache = loader._cache;
  return require;
}

/** The state of a module's file that its code was compiled from. */
function fileKey(filename: string): string {
  const stat = statSync(filename);
  return `${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
}

/** The folder, made when missing; undefined unless it is a real folder of this user that no one else can write. */
function ownCacheFolder(folder: string): string | undefined {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const stat = lstatSync(folder);
    const ownedByUs = process.getuid === undefined || stat.uid === process.getuid();
    return stat.isDirectory() && ownedByUs && (stat.mode & 0o022) === 0 ? folder : undefined;
  } catch {
    return undefined;
  }
}

function readCacheFile(file: string): Array<[filename: string, key: string, data: Buffer]> {
  try {
    const bytes = readFileSync(file);
    const headerEnd = 4 + bytes.readUInt32LE(0);
    const header = JSON.parse(bytes.toString('utf8', 4, headerEnd)) as Header;
    const blob = bytes.subarray(headerEnd);
    if (hash('sha256', blob) !== header.digest) return [];
    return header.entries.map(([filename, key, offset, length]) => [
      filename,
      key,
      blob.subarray(offset, offset + length),
    ]);
  } catch {
    return [];
  }
}

function writeCacheFile(file: string, modules: Map<string, { key: string; data: Buffer }>): void {
  const entries: Entry[] = [];
  let offset = 0;
  for (const [filename, { key, data }] of modules) {
    entries.push([filename, key, offset, data.length]);
    offset += data.length;
  }
  const blob = Buffer.concat([...modules.values()].map(({ data }) => data));
  const header = Buffer.from(JSON.stringify({ digest: hash('sha256', blob), entries } satisfies Header));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  const aside = `${file}.${process.pid}`;
  try {
    writeFileSync(aside, Buffer.concat([length, header, blob]), { mode: 0o600 });
    renameSync(aside, file);
  } catch {
    // A cache that cannot be written is only a slower next start.
    try {
      rmSync(aside, { force: true });
    } catch {
      // Nothing more to do: the next save writes aside under another pid.
    }
  }
}
