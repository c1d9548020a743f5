/**
 * The first thing every file of the bundle imports (dist/bundle-runtime.mjs; bundle.mjs's banner): the names of a
 * CommonJS module — `require`, `__filename`, `__dirname` — for the CommonJS packages bundled into an ES module.
 * `require` loads what stays external (dependency-rules.mjs) and Node's own modules; `__dirname` is the bundle's
 * folder, where the files libraries read beside themselves are copied (CARRIED_FILES of bundle.mjs).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Packages that a library hands to another thread by path (`require.resolve`), bundled as a CommonJS file of their
 * own beside the bundle: `@assistant/tools-web` reads articles on worker threads that load these two.
 */
export const CARRIED_PACKAGES = {
  linkedom: 'linkedom.cjs',
  '@mozilla/readability': 'mozilla-readability.cjs',
};

/** `require`, `__filename` and `__dirname` for the bundle file at `url`. */
export function commonJsScope(url) {
  const filename = fileURLToPath(url);
  const folder = dirname(filename);
  const nodeRequire = createRequire(url);
  const resolve = (request, options) =>
    Object.hasOwn(CARRIED_PACKAGES, request)
      ? join(folder, CARRIED_PACKAGES[request])
      : nodeRequire.resolve(request, options);
  resolve.paths = nodeRequire.resolve.paths;
  const require = Object.assign((request) => nodeRequire(request), nodeRequire, { resolve });
  return { require, filename, dirname: folder };
}
