import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILT, startServer } from './support/processes';

/**
 * `assistant serve` and Node's compile cache: Node 22.1 and later keep the compiled code of the modules a start
 * loads in their own cache (`module.enableCompileCache()`, which bin/run.js turns on; by default under the OS's
 * temporary folder), so that the next start compiles nothing again. Node 20 has none and runs as it is: the CLI
 * brings no cache of its own that patches Node's private loader. The Node 24 end-to-end run
 * (tools/workspace/scripts/node-versions-checks.mjs) holds the first test; the workspace's Node 20 the second.
 */
const E2E_NODE = process.env.ASSISTANT_E2E_NODE ?? process.execPath;
const hasCompileCache =
  execFileSync(E2E_NODE, ['-p', "typeof require('node:module').enableCompileCache"], {
    encoding: 'utf8',
  }).trim() === 'function';

describe('assistant serve and the compile cache', () => {
  let folder: string;
  let temp: string;
  let cacheHome: string;

  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'assistant-compile-cache-'));
    temp = join(folder, 'tmp');
    cacheHome = join(folder, 'cache');
    mkdirSync(temp);
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  /** Starts the built CLI's server on a fresh data directory and stops it once it listens. */
  async function startAndStop(): Promise<void> {
    const server = await startServer(
      BUILT.cli,
      ['serve', '--data-dir', join(folder, 'data'), '--port', '0'],
      { TMPDIR: temp, XDG_CACHE_HOME: cacheHome },
    );
    expect(await server.stop()).toBe(0);
  }

  (hasCompileCache ? it : it.skip)(
    "fills Node's own compile cache on Node 22.1 and later (skipped on a Node without module.enableCompileCache)",
    async () => {
      await startAndStop();
      const cache = join(temp, 'node-compile-cache');
      expect(existsSync(cache) && readdirSync(cache, { recursive: true }).length).toBeGreaterThan(0);
    },
  );

  it('starts without a compile cache of its own, on any Node', async () => {
    await startAndStop();
    expect(existsSync(join(cacheHome, 'assistant', 'compile-cache'))).toBe(false);
  });
});
