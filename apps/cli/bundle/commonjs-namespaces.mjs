/**
 * `import()` of a CommonJS module in the bundle answers as Node answers it: a namespace holding the names the module
 * exports, and `module.exports` as its default. esbuild, splitting ES modules into chunks, makes such an import a
 * chunk of its own that exports `default` only (it does not know the names), so that `const { createClient } = await
 * import('webdav')` — in our libraries' tsc output and in the CLI's commands — would find nothing. This plugin puts a
 * module in between that exports the names Node finds: read by the lexer Node itself uses (cjs-module-lexer),
 * following re-exports (`__exportStar(require('./x'), exports)`) as Node does.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { init, parse } from 'cjs-module-lexer';

const NAMESPACE = 'assistant-commonjs-namespace';

/** Whether Node loads `file` as CommonJS: `.cjs`, or `.js` in a package whose type is not `module`. */
function isCommonJs(file) {
  const extension = extname(file);
  if (extension === '.cjs') return true;
  if (extension !== '.js') return false;
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).type !== 'module';
    } catch {
      // no package.json here: look further up
    }
  }
  return true;
}

/** The names Node's namespace of the CommonJS module `file` holds, besides `default`. */
function exportNames(file, seen = new Set()) {
  if (seen.has(file)) return new Set();
  seen.add(file);
  const { exports, reexports } = parse(readFileSync(file, 'utf8'));
  const names = new Set(exports);
  for (const request of reexports) {
    let target;
    try {
      target = createRequire(file).resolve(request);
    } catch {
      continue; // Node skips a re-export it cannot resolve too
    }
    if (isCommonJs(target)) for (const name of exportNames(target, seen)) names.add(name);
  }
  names.delete('default');
  return names;
}

/** The module that stands for the namespace of `file`. */
function namespaceModule(file) {
  const names = [...exportNames(file)];
  return [
    `const exported = require(${JSON.stringify(file)});`,
    'export default exported;',
    ...names.map((name, index) => `const name${index} = exported[${JSON.stringify(name)}];`),
    `export { ${names.map((name, index) => `name${index} as ${JSON.stringify(name)}`).join(', ')} };`,
  ].join('\n');
}

/** The esbuild plugin. */
export async function commonJsNamespaces() {
  await init();
  return {
    name: 'assistant-commonjs-namespaces',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind !== 'dynamic-import' || args.pluginData?.resolving) return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          // Marked, as dependency-rules.mjs marks its own: the plugins asked again do not ask again.
          pluginData: { resolving: true },
        });
        if (resolved.errors.length > 0 || resolved.external || !isCommonJs(resolved.path)) return resolved;
        return { path: resolved.path, namespace: NAMESPACE };
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
        contents: namespaceModule(args.path),
        resolveDir: dirname(args.path),
        loader: 'js',
      }));
    },
  };
}
