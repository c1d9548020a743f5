/**
 * The closing line of `npm test` ("N passed, N failed") adds up what tools/workspace/scripts/jest-summary-reporter.cjs
 * leaves, one JSON file per jest run, in $ASSISTANT_TEST_SUMMARY_DIR (test-all.mjs). These tests run jest with that
 * reporter over small suites written to a temporary folder and check that its counts count what ran: a failed test
 * once, a suite that crashed in its set-up or its clean-up once, nothing left out and nothing counted twice.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const workspaceRoot = path.resolve(__dirname, '../../..');
const reporter = path.join(workspaceRoot, 'tools/workspace/scripts/jest-summary-reporter.cjs');

const suites = {
  'passing.test.js': "test('passes', () => {});\n",
  'failing.test.js': "test('fails', () => { throw new Error('wrong'); });\n",
  'set-up-throws.test.js':
    "beforeAll(() => { throw new Error('no database'); });\ntest('first', () => {});\ntest('second', () => {});\n",
  // The clean-up crash of issue 18: its test passed, then afterAll threw. Jest counts no failed test here.
  'clean-up-throws.test.js':
    "afterAll(() => { throw new Error('cannot close'); });\ntest('runs', () => {});\n",
  'fails-then-clean-up-throws.test.js':
    "afterAll(() => { throw new Error('cannot close'); });\ntest('fails', () => { throw new Error('wrong'); });\ntest('passes', () => {});\n",
  'does-not-load.test.js': "throw new Error('a broken import');\n",
  'skipped.test.js': "test.skip('later', () => {});\ntest.todo('some day');\ntest('now', () => {});\n",
};

type Counts = { passed: number; failed: number; skipped: number };

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'summary-reporter-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs jest over the named fixture suites; answers what the reporter left, one entry per file. */
function runJest(names: (keyof typeof suites)[]): { status: number | null; summaries: Counts[] } {
  const fixtures = path.join(dir, 'suites');
  const summaryDir = path.join(dir, 'summary');
  rmSync(fixtures, { recursive: true, force: true });
  rmSync(summaryDir, { recursive: true, force: true });
  mkdirSync(fixtures, { recursive: true });
  for (const name of names) writeFileSync(path.join(fixtures, name), suites[name]);
  const config = path.join(dir, 'jest.config.cjs');
  writeFileSync(
    config,
    `module.exports = ${JSON.stringify({
      rootDir: fixtures,
      testMatch: ['**/*.test.js'],
      transform: {},
      cacheDirectory: path.join(dir, 'cache'),
      reporters: [reporter],
    })};\n`,
  );
  const result = spawnSync(
    process.execPath,
    [path.join(workspaceRoot, 'node_modules/jest/bin/jest.js'), '--config', config, '--ci', '--no-watchman'],
    {
      cwd: workspaceRoot,
      // Its own folder: within `npm test` this process has the real one, whose totals these runs must not touch.
      env: { ...process.env, ASSISTANT_TEST_SUMMARY_DIR: summaryDir },
      encoding: 'utf8',
      timeout: 50_000,
    },
  );
  let files: string[] = [];
  try {
    files = readdirSync(summaryDir);
  } catch {
    // No folder: the reporter left nothing; the expectations below say so.
  }
  const summaries = files.map(
    (file) => JSON.parse(readFileSync(path.join(summaryDir, file), 'utf8')) as Counts,
  );
  if (summaries.length === 0) console.log(result.stdout, result.stderr);
  return { status: result.status, summaries };
}

describe('the summary reporter of npm test', () => {
  it('counts a passing test as passed', () => {
    const { status, summaries } = runJest(['passing.test.js']);

    expect({ status, summaries }).toEqual({ status: 0, summaries: [{ passed: 1, failed: 0, skipped: 0 }] });
  });

  it('counts a failing test as failed, once', () => {
    const { status, summaries } = runJest(['failing.test.js']);

    expect({ status, summaries }).toEqual({ status: 1, summaries: [{ passed: 0, failed: 1, skipped: 0 }] });
  });

  it('counts each test of a suite whose beforeAll threw as failed, and the suite not again', () => {
    const { status, summaries } = runJest(['set-up-throws.test.js']);

    expect({ status, summaries }).toEqual({ status: 1, summaries: [{ passed: 0, failed: 2, skipped: 0 }] });
  });

  it('counts a suite whose afterAll threw as failed, once, beside its test that passed', () => {
    const { status, summaries } = runJest(['clean-up-throws.test.js']);

    expect({ status, summaries }).toEqual({ status: 1, summaries: [{ passed: 1, failed: 1, skipped: 0 }] });
  });

  it('counts a suite whose test failed before its afterAll threw as failed once, not twice', () => {
    const { status, summaries } = runJest(['fails-then-clean-up-throws.test.js']);

    expect({ status, summaries }).toEqual({ status: 1, summaries: [{ passed: 1, failed: 1, skipped: 0 }] });
  });

  it('counts a suite that failed to load as failed, once', () => {
    const { status, summaries } = runJest(['does-not-load.test.js']);

    expect({ status, summaries }).toEqual({ status: 1, summaries: [{ passed: 0, failed: 1, skipped: 0 }] });
  });

  it('counts skipped and todo tests as skipped, not as passed', () => {
    const { status, summaries } = runJest(['skipped.test.js']);

    expect({ status, summaries }).toEqual({ status: 0, summaries: [{ passed: 1, failed: 0, skipped: 2 }] });
  });

  it('leaves one file for a run of all of them together, which adds up to what ran', () => {
    const { status, summaries } = runJest(Object.keys(suites) as (keyof typeof suites)[]);

    // Jest's own line says 4 failed: the reporter adds the crashed clean-up and the suite that did not load.
    expect({ status, summaries }).toEqual({ status: 1, summaries: [{ passed: 4, failed: 6, skipped: 2 }] });
  });
});
