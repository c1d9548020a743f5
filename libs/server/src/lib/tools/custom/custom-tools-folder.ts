import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { readdirSync, readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { isScope } from '@assistant/contracts';
import { isToolDefinition, sideEffectsScopeProblem, type ToolDefinition } from '@assistant/tool-kit';
import { hookVersionedImports, versionedModuleUrl } from './versioned-imports';

/** The files of a tools folder that are tool modules: directly in it, not hidden (an editor's swap file). */
const MODULE_FILE = /^[^.].*\.(?:js|mjs|cjs)$/;

/** Custom tools are one family: `custom_<verb>`, so that none can take a built-in tool's name, now or later. */
export const CUSTOM_TOOL_NAME = /^custom_[a-z0-9]+(?:_[a-z0-9]+)*$/;

/** How long the folder must be quiet before it is read again (an editor saves in several writes). */
const SETTLE_MS = 150;

/** Imports one version of a module file; a new `version` must read the file again. */
export type ModuleImporter = (file: string, version: string) => Promise<unknown>;

/** A skipped module, for the one log line that says so. */
export interface SkippedModule {
  file: string;
  reason: string;
}

export interface CustomToolsFolderOptions {
  folder: string;
  /** Told once per module that is skipped, and again only when it is skipped for another reason. */
  onSkipped(skipped: SkippedModule): void;
  /** Told when the folder cannot be watched or read any more (it was removed). */
  onError?(error: Error): void;
  importModule?: ModuleImporter;
  settleMs?: number;
}

/** What one file of the folder gave at its last reading: its version, and that of the helpers it was read with. */
type Outcome = { version: string; helpers: number } & ({ tool: ToolDefinition } | { reason: string });

/**
 * The custom tools of a self-hosted server: each module file of one folder default-exports `defineTool({...})`
 * of `@assistant/tool-kit`. The folder is read at start and again when it changes (`watch`); a module that
 * cannot be used is skipped, with its reason, and the others load. `tools` are the ones that loaded, each
 * handler wrapped so that whatever it throws fails its call with a message.
 */
export class CustomToolsFolder {
  private current: readonly ToolDefinition[] = [];
  private readonly outcomes = new Map<string, Outcome>();
  /** The reason each skipped file was last logged with. */
  private readonly told = new Map<string, string>();
  private readonly changes = new EventEmitter();
  private readonly importModule: ModuleImporter;
  private watcher: FSWatcher | undefined;
  /** The folders of helper files beside the modules (`lib/`, not `node_modules`), each watched on its own. */
  private readonly helperWatchers = new Map<string, FSWatcher>();
  /** Counts the changes of helper files: a module read before the last one is read again, with its helpers. */
  private helpers = 0;
  private helpersChanged = false;
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> = Promise.resolve();
  /** Tries of failed modules so far, which make each try's version unique. */
  private retries = 0;

  constructor(private readonly options: CustomToolsFolderOptions) {
    this.importModule = options.importModule ?? importFresh;
    this.changes.setMaxListeners(0);
  }

  get folder(): string {
    return this.options.folder;
  }

  /** The tools that loaded, in the order of their files' names. */
  get tools(): readonly ToolDefinition[] {
    return this.current;
  }

  /** Calls `listener` whenever `tools` changed; returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.changes.on('change', listener);
    return () => this.changes.off('change', listener);
  }

  /** Reads the folder (again): one reading at a time, each seeing the folder as it is when it starts. */
  load(): Promise<void> {
    const next = this.reading.then(() => this.read());
    this.reading = next.catch(() => undefined);
    return next;
  }

  /** Reads the folder again whenever something in it changes, once it has settled. */
  watch(): void {
    if (this.watcher) return;
    const failed = (error: Error) => {
      this.close();
      this.options.onError?.(error);
    };
    try {
      this.watcher = watch(this.options.folder, { persistent: false }, () => this.settle(failed));
    } catch (error) {
      return failed(error as Error);
    }
    this.watcher.on('error', failed);
    this.watchHelpers();
  }

  close(): void {
    clearTimeout(this.timer);
    this.watcher?.close();
    this.watcher = undefined;
    for (const watcher of this.helperWatchers.values()) watcher.close();
    this.helperWatchers.clear();
  }

  /** Reads the folder once it has been quiet for a moment (an editor saves in several writes). */
  private settle(failed: (error: Error) => void): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.load().catch(failed), this.options.settleMs ?? SETTLE_MS);
  }

  /**
   * Watches each folder of helper files directly in the tools folder (a watch of the tools folder does not see
   * inside them): a change there reads every module again, with its helpers. Kept in step with the folders there
   * at each reading; a folder that cannot be watched is left out.
   */
  private watchHelpers(): void {
    if (!this.watcher) return;
    const folders = helperFolders(this.options.folder);
    for (const [name, watcher] of this.helperWatchers) {
      if (folders.includes(name)) continue;
      watcher.close();
      this.helperWatchers.delete(name);
    }
    for (const name of folders) {
      if (this.helperWatchers.has(name)) continue;
      try {
        const watcher = watch(join(this.options.folder, name), { persistent: false }, () => {
          this.helpersChanged = true;
          this.settle(() => undefined);
        });
        watcher.on('error', () => {
          watcher.close();
          this.helperWatchers.delete(name);
        });
        this.helperWatchers.set(name, watcher);
      } catch {
        // Removed meanwhile, or not readable: nothing to watch.
      }
    }
  }

  private async read(): Promise<void> {
    if (this.helpersChanged) {
      this.helpersChanged = false;
      this.helpers++;
    }
    this.watchHelpers();
    const files = moduleFiles(this.options.folder);
    for (const name of this.outcomes.keys()) {
      if (!files.includes(name)) {
        this.outcomes.delete(name);
        this.told.delete(name);
      }
    }
    for (const name of files) {
      const path = join(this.options.folder, name);
      let source: Buffer;
      try {
        source = readFileSync(path);
      } catch {
        continue; // Removed while the folder was read: the next reading forgets it.
      }
      const version = createHash('sha256').update(source).digest('hex').slice(0, 16);
      const previous = this.outcomes.get(name);
      if (previous?.version === version && previous.helpers === this.helpers && 'tool' in previous) continue;
      // A module that failed is tried again at every reading, edited or not: what it lacked may have come since
      // (`npm install` in the folder, a file it imports fixed, then the module touched); so is one whose helpers
      // changed. Each try is a version of its own, since Node keeps a module of a URL as it first read it.
      const attempt = previous?.version === version ? `${version}.${++this.retries}` : version;
      this.outcomes.set(name, { version, helpers: this.helpers, ...(await this.loadModule(path, attempt)) });
    }
    const tools: ToolDefinition[] = [];
    const owners = new Map<string, string>();
    for (const name of files) {
      const outcome = this.outcomes.get(name);
      if (!outcome) continue;
      let reason = 'reason' in outcome ? outcome.reason : undefined;
      if ('tool' in outcome) {
        const owner = owners.get(outcome.tool.name);
        if (owner) reason = `${owner} already defines ${outcome.tool.name}; tool names must be unique`;
        else {
          owners.set(outcome.tool.name, name);
          tools.push(outcome.tool);
        }
      }
      if (reason === undefined) this.told.delete(name);
      else if (this.told.get(name) !== reason) {
        this.told.set(name, reason);
        this.options.onSkipped({ file: join(this.options.folder, name), reason });
      }
    }
    const changed = tools.length !== this.current.length || tools.some((tool, i) => tool !== this.current[i]);
    this.current = tools;
    if (changed) this.changes.emit('change');
  }

  /** The module's tool, or why it cannot be one. */
  private async loadModule(
    path: string,
    version: string,
  ): Promise<{ tool: ToolDefinition } | { reason: string }> {
    let loaded: unknown;
    try {
      loaded = await this.importModule(path, version);
    } catch (error) {
      return { reason: importFailure(path, error) };
    }
    const exported = defaultExport(loaded);
    if (exported === undefined) {
      return { reason: 'it has no default export (`export default defineTool({...})`)' };
    }
    if (!isToolDefinition(exported)) {
      return {
        reason:
          'its default export is not made by defineTool (`export default defineTool({...})` of @assistant/tool-kit)',
      };
    }
    // Copied first, then checked: the module keeps its object, and a getter or a later change of it cannot make
    // the tool the catalogue runs differ from the one that passed the checks.
    let tool: ToolDefinition;
    try {
      tool = asCustomTool(exported);
    } catch (error) {
      return { reason: `its definition cannot be read: ${describeThrown(error) || 'it threw'}` };
    }
    const problem = definitionProblem(tool);
    return problem ? { reason: problem } : { tool };
  }
}

/** The folders directly in the tools folder that may hold helper files: not hidden, not `node_modules`. */
function helperFolders(folder: string): string[] {
  try {
    return readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && entry.name !== 'node_modules')
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

/** The module files of the folder, by name; none when there is no folder. */
function moduleFiles(folder: string): string[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  return names.filter((name) => MODULE_FILE.test(name) && isFile(join(folder, name))).sort();
}

function isFile(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

/**
 * Node's own `import()`, kept from being compiled to `require()` (the server is built as CommonJS, and a module
 * may be ESM). Each version is a URL of its own, so that Node reads a changed file again (the versions before
 * stay in Node's module map: a few kilobytes an edit); a CommonJS module is also forgotten by the require cache
 * first.
 */
const nativeImport = new Function('url', 'return import(url)') as (url: string) => Promise<unknown>;

export const importFresh: ModuleImporter = (file, version) => {
  delete require.cache[file];
  hookVersionedImports();
  return nativeImport(versionedModuleUrl(file, version));
};

/**
 * The default export of an imported module: an ES module's `default`, a CommonJS module's `module.exports`
 * (which Node gives as `default`), or the `default` of a CommonJS module compiled from ESM.
 */
function defaultExport(loaded: unknown): unknown {
  const value = (loaded as { default?: unknown } | null)?.default;
  if (!isToolDefinition(value) && isToolDefinition((value as { default?: unknown } | null)?.default)) {
    return (value as { default: unknown }).default;
  }
  return value;
}

/** Why importing a module failed, in one line. */
function importFailure(path: string, error: unknown): string {
  const { name, message, code, stack } = (error ?? {}) as Partial<NodeJS.ErrnoException>;
  const text = (message ?? String(error)).split('\n')[0];
  if (name === 'SyntaxError') {
    // A CommonJS module's stack starts with `file:line`; an ES module's does not say where.
    const line = /^[^\n]*:(\d+)\n/.exec(stack ?? '')?.[1];
    return line
      ? `syntax error on line ${line}: ${text}`
      : `syntax error: ${text} (\`node --check ${path}\` shows where)`;
  }
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
    const hint = /@assistant\/tool-kit/.test(text)
      ? ' (run `npm install @assistant/tool-kit` in the tools folder)'
      : '';
    return `it cannot be loaded: ${text}${hint}`;
  }
  return `it threw while loading: ${text}`;
}

/** What is wrong with a tool definition as a custom tool, if anything. */
function definitionProblem(tool: ToolDefinition): string | undefined {
  if (!CUSTOM_TOOL_NAME.test(tool.name)) {
    return `its name ${tool.name} is not custom_<verb>: custom tools are named custom_<verb> in snake_case (e.g. custom_order_status)`;
  }
  if (typeof tool.description !== 'string' || tool.description.trim() === '') {
    return 'it has no description (the model reads it to know when to call the tool)';
  }
  if (typeof tool.handler !== 'function') return 'its handler is not a function';
  if (!isScope(tool.scope)) return `its scope ${String(tool.scope)} is no scope of this server`;
  if (typeof tool.side_effects !== 'boolean') return 'its side_effects is not true or false';
  // The kit refuses this at defineTool; a module may still change its tool afterwards, or bring an older kit.
  const scopeProblem = sideEffectsScopeProblem(tool);
  if (scopeProblem) return scopeProblem;
  const input = tool.input as unknown as { _zod?: { def?: { type?: string } }; safeParse?: unknown };
  if (typeof input?.safeParse !== 'function' || input._zod?.def?.type !== 'object') {
    return 'its input is not a zod 4 object (`input: z.object({...})`)';
  }
  try {
    z.toJSONSchema(tool.input, { io: 'input' });
  } catch (error) {
    return `its input has no JSON Schema: ${(error as Error).message}`;
  }
  return undefined;
}

/**
 * The tool as the catalogue offers it, a copy of the module's (its fields read once): whatever its handler throws
 * (a string, an object) fails the call with an Error and a message, and a handler that returns nothing answers
 * `null`.
 */
function asCustomTool(exported: ToolDefinition): ToolDefinition {
  const tool = { ...exported };
  const { handler } = tool;
  return {
    ...tool,
    handler: async (input, context) => {
      let output: unknown;
      try {
        output = await handler.call(exported, input, context);
      } catch (error) {
        if (error instanceof Error) throw error;
        throw new Error(describeThrown(error) || `${tool.name} failed without saying why`);
      }
      return output === undefined ? null : output;
    },
  };
}

/** A thrown value that is no Error (a string, an object, an Error of another realm) in words. */
function describeThrown(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  const message = (value as { message?: unknown }).message;
  if (typeof message === 'string') return message;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
