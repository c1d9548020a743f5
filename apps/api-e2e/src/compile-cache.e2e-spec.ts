import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, WORKSPACE_ROOT } from './support/processes';

/**
 * The compile cache that `assistant serve` brings on Node 20 (apps/cli/src/lib/compile-cache.ts): each run below is
 * a new process, as each start of the server is, loading a module of the test's through the built cache.
 */
describe('the compile cache of the built CLI', () => {
  const COMPILE_CACHE = join(WORKSPACE_ROOT, 'apps/cli/dist/lib/compile-cache.js');
  let folder: string;
  let cacheHome: string;
  let module: string;
  let loader: string;

  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'assistant-compile-cache-'));
    cacheHome = join(folder, 'cache');
    module = join(folder, 'answer.js');
    loader = join(folder, 'load.js');
    // Prints what the module exports (awaited, for a module whose export is a promise), as plain text: the CI's
    // FORCE_COLOR would color a logged number.
    writeFileSync(
      loader,
      `require(${JSON.stringify(COMPILE_CACHE)}).installCompileCache('spec');
       Promise.resolve(require(${JSON.stringify(module)})()).then((value) => console.log(String(value)));`,
    );
  });

  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  const load = () => run(loader, [], { XDG_CACHE_HOME: cacheHome });
  const cacheFile = () => {
    const [name] = readdirSync(join(cacheHome, 'assistant', 'compile-cache'));
    return join(cacheHome, 'assistant', 'compile-cache', name!);
  };

  it('runs a module changed since it was cached as it is now, even at the same length', async () => {
    writeFileSync(module, 'module.exports = () => 41;');
    expect(await load()).toEqual({ code: 0, stdout: '41\n', stderr: '' });
    expect(readFileSync(cacheFile()).length).toBeGreaterThan(0);
    writeFileSync(module, 'module.exports = () => 42;');
    expect(await load()).toEqual({ code: 0, stdout: '42\n', stderr: '' });
  });

  it('keeps import() working in modules loaded again in a later process', async () => {
    writeFileSync(module, "module.exports = () => import('node:path').then((path) => path.sep);");
    for (let i = 0; i < 2; i++) expect(await load()).toEqual({ code: 0, stdout: '/\n', stderr: '' });
  });

  it('compiles as without it when the cache file is corrupt', async () => {
    writeFileSync(module, 'module.exports = () => "fine";');
    await load();
    const bytes = readFileSync(cacheFile());
    // The end of the cached code turned over, the headers (ours and V8's, which V8 checks) left as they were.
    for (let i = bytes.length - 64; i < bytes.length; i++) bytes[i] = bytes[i]! ^ 0xff;
    writeFileSync(cacheFile(), bytes);
    expect(await load()).toEqual({ code: 0, stdout: 'fine\n', stderr: '' });
    writeFileSync(cacheFile(), 'not a cache');
    expect(await load()).toEqual({ code: 0, stdout: 'fine\n', stderr: '' });
  });
});
