import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vm from 'node:vm';
import type { ModuleImporter } from '../lib/tools/custom/custom-tools-folder';
import { VERSIONED_IMPORT_HOOKS, versionedModuleUrl } from '../lib/tools/custom/versioned-imports';

/**
 * A custom tools folder for a test, as a user sets one up: the modules, and `@assistant/tool-kit` installed
 * beside them (here: linked to the workspace's build of the kit). Tests only.
 */
export interface ToolsFolder {
  path: string;
  /** Writes (or overwrites) one module file. */
  write(name: string, source: string): string;
  remove(name: string): void;
  /** Installs the kit beside the modules, as `npm install @assistant/tool-kit` does (makeToolsFolder does it first). */
  installKit(): void;
  close(): void;
}

/** The workspace's kit (libs/tools/kit), built: what `npm install @assistant/tool-kit` would bring. */
const KIT = join(__dirname, '..', '..', '..', 'tools', 'kit');

export function makeToolsFolder(): ToolsFolder {
  const root = mkdtempSync(join(tmpdir(), 'assistant-custom-tools-'));
  const path = join(root, 'tools');
  const installKit = () => {
    mkdirSync(join(path, 'node_modules', '@assistant'), { recursive: true });
    symlinkSync(KIT, join(path, 'node_modules', '@assistant', 'tool-kit'), 'dir');
  };
  installKit();
  return {
    path,
    write: (name, source) => {
      writeFileSync(join(path, name), source);
      return join(path, name);
    },
    remove: (name) => rmSync(join(path, name), { recursive: true, force: true }),
    installKit,
    close: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** A module of `export default defineTool({...})` with the given fields (JavaScript source) and handler body. */
export function toolModule(fields: string, handler = "return 'ok';"): string {
  return [
    "import { defineTool, z } from '@assistant/tool-kit';",
    `export default defineTool({ ${fields}, handler: async (input, context) => { ${handler} } });`,
    '',
  ].join('\n');
}

const importInMainContext = vm.runInThisContext(
  `(async (url, file) => {
    const { createRequire } = process.getBuiltinModule('node:module');
    delete createRequire(file).cache[file];
    return import(url);
  })`,
  { importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER },
) as (url: string, file: string) => Promise<unknown>;

/**
 * Node's own loader, for tests that change a module and load it again: jest's module system serves a file's first
 * contents for every later import of it, so the server's importer (an `import()` that jest runs) would never see
 * the change there. Node flags this option as experimental; the server's test target silences the warning.
 */
export const importWithNode: ModuleImporter = (file, version) => {
  hookInMainContext();
  return importInMainContext(versionedModuleUrl(file, version), file);
};

/**
 * The server's hook for the helpers of a tool module (versioned-imports.ts), registered with Node's own loader:
 * jest's `node:module` refuses `register`, as it would reach past jest's module system, which is the point here.
 */
const hookInMainContext = (() => {
  let hooked = false;
  const register = vm.runInThisContext(
    `((source) => process.getBuiltinModule('node:module').register('data:text/javascript,' + encodeURIComponent(source)))`,
  ) as (source: string) => void;
  return () => {
    if (hooked) return;
    hooked = true;
    register(VERSIONED_IMPORT_HOOKS);
  };
})();
