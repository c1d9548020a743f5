import { register } from 'node:module';
import { pathToFileURL } from 'node:url';

/** The query parameter of a custom tool module's URL that names its version (see versionedModuleUrl). */
const VERSION = 'assistant_tool_version';

/**
 * Node's resolve hook (a module's source, run on Node's loader thread): a module imported by a versioned custom
 * tool module — a helper file, not a package of node_modules, which stays one shared copy — gets the same version.
 */
export const VERSIONED_IMPORT_HOOKS = `
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const version = context.parentURL ? new URL(context.parentURL).searchParams.get(${JSON.stringify(VERSION)}) : null;
  if (!version || !resolved.url.startsWith('file:') || resolved.url.includes('/node_modules/')) return resolved;
  const url = new URL(resolved.url);
  if (url.search) return resolved;
  url.searchParams.set(${JSON.stringify(VERSION)}, version);
  return { ...resolved, url: url.href };
}
`;

/**
 * The URL that imports one version of a custom tool module, and, once the hook is registered, of the helper files
 * it imports. Node keeps every module it imported by URL for the life of the process, a failed one failed:
 * without the version on its helpers, a helper with a syntax error would stay broken however often the tool is
 * tried again, and a fixed one unseen.
 */
export function versionedModuleUrl(file: string, version: string): string {
  const url = pathToFileURL(file);
  url.searchParams.set(VERSION, version);
  return url.href;
}

let hooked = false;

/**
 * Registers the hook with Node's loader, once: at the first custom tool module imported, so that a self-hosted
 * server without any starts no loader thread.
 */
export function hookVersionedImports(): void {
  if (hooked) return;
  hooked = true;
  register(`data:text/javascript,${encodeURIComponent(VERSIONED_IMPORT_HOOKS)}`);
}
