/**
 * Test-only preload (`NODE_OPTIONS="--import <this file>"`): appends the path of every file the process loads —
 * ES modules as Node's loader takes them, CommonJS modules from the require cache as the process exits — to the file
 * named by LOADED_FILES_PROBE, one a line. The bundled `assistant` command is ES modules, which no require cache
 * lists. Nothing of it is part of the product.
 */
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const out = process.env.LOADED_FILES_PROBE;

if (out) {
  // Node's module hooks run on a thread of their own: they write each file as it loads.
  const hooks = `import { appendFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
export async function load(url, context, nextLoad) {
  if (url.startsWith('file:')) appendFileSync(${JSON.stringify(out)}, fileURLToPath(url) + '\\n');
  return nextLoad(url, context);
}`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`);
  const cache = createRequire(import.meta.url).cache;
  process.on('exit', () => {
    appendFileSync(
      out,
      Object.keys(cache)
        .map((file) => `${file}\n`)
        .join(''),
    );
  });
}
