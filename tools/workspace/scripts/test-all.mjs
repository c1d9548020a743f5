#!/usr/bin/env node
/**
 * The whole test suite, as the README's second command runs it: build, the type check of every project's sources
 * and tests, lint (with module boundaries), unit and integration tests of every project, the end-to-end suites
 * against SQLite and PostgreSQL, and the supported Node versions (node-versions-checks.mjs: the packages installed
 * from their tarballs on this Node and on Node 24, and from a local registry they are published to, the
 * self-hosted e2e suites on Node 24). Ends with one
 * line: "N passed, N failed". First it starts every service the suites need (test-services.mjs): PostgreSQL at
 * $ASSISTANT_TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), Redis (the suites use
 * $ASSISTANT_TEST_REDIS_URL, default database 15, never 0), mail, calendar, WebDAV, MQTT, Chromium, Node 24 and
 * Verdaccio.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runNodeVersionsChecks } from './node-versions-checks.mjs';
import { startTestServices } from './test-services.mjs';

const root = new URL('../../../', import.meta.url).pathname;
const summaryDir = mkdtempSync(join(tmpdir(), 'assistant-test-summary-'));
const env = {
  ...process.env,
  NX_DAEMON: 'false',
  NX_NO_CLOUD: 'true',
  ASSISTANT_TEST_SUMMARY_DIR: summaryDir,
};

function nx(args) {
  const result = spawnSync('npx', ['nx', ...args, '--output-style=static'], {
    cwd: root,
    env,
    stdio: 'inherit',
  });
  return result.status ?? 1;
}

// Every service the suites need, started here (idempotently), so that a fresh machine needs nothing by hand.
const serviceFailures = startTestServices(root, env);
if (serviceFailures.length > 0) {
  for (const failure of serviceFailures) console.error(failure);
  console.log(`0 passed, ${serviceFailures.length} failed`);
  process.exit(1);
}

const buildStatus = nx(['run-many', '-t', 'build']);
const typecheckStatus = buildStatus === 0 ? nx(['run-many', '-t', 'typecheck']) : 1;
const lintStatus = buildStatus === 0 ? nx(['run-many', '-t', 'lint']) : 1;
const testStatus = buildStatus === 0 ? nx(['run-many', '-t', 'test', 'e2e', '--parallel=1']) : 1;
// The packages as users install them, on this Node and on Node 24, and the self-hosted e2e suites on Node 24.
// The spec of this script (type-check.spec.ts), whose nx is a stand-in, sets ASSISTANT_TEST_SKIP_NODE_VERSIONS=1:
// these checks pack and install real packages.
const nodeVersions =
  buildStatus === 0 && process.env.ASSISTANT_TEST_SKIP_NODE_VERSIONS !== '1'
    ? await runNodeVersionsChecks(root, env)
    : { passed: 0, failed: 0 };

let passed = 0;
let failed = 0;
for (const file of readdirSync(summaryDir)) {
  const counts = JSON.parse(readFileSync(join(summaryDir, file), 'utf8'));
  passed += counts.passed;
  failed += counts.failed;
}
rmSync(summaryDir, { recursive: true, force: true });

// Build, type check and lint are checks too: a failure there counts, even though no jest test ran.
if (buildStatus !== 0) console.error('build failed');
if (typecheckStatus !== 0) console.error('type check failed');
if (lintStatus !== 0) console.error('lint failed');
if (testStatus !== 0 && failed === 0) console.error('a test run failed before reporting (see above)');
failed +=
  (buildStatus !== 0) + (typecheckStatus !== 0) + (lintStatus !== 0) + (testStatus !== 0 && failed === 0);
passed += nodeVersions.passed;
failed += nodeVersions.failed;
console.log(`${passed} passed, ${failed} failed`);
process.exit(buildStatus || typecheckStatus || lintStatus || testStatus || (nodeVersions.failed > 0 ? 1 : 0));
