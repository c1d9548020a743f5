/**
 * Test data never lands in Redis database 0, where a developer's own Redis keeps its data (issue 18). The suites
 * take their Redis from $ASSISTANT_TEST_REDIS_URL, which tools/workspace/scripts/jest-test-env.cjs (the jest
 * preset's setupFiles) defaults to another database. These tests hold that default, and that it reaches every suite.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as path from 'node:path';

const workspaceRoot = path.resolve(__dirname, '../../..');
const testEnv = path.join(workspaceRoot, 'tools/workspace/scripts/jest-test-env.cjs');
const preset = path.join(workspaceRoot, 'jest.preset.js');

/** The database a redis:// URL selects, as ioredis reads it: the path's number, or `?db=`; 0 without either. */
function databaseOf(url: string): number {
  const parsed = new URL(url);
  const selected = parsed.searchParams.get('db') ?? parsed.pathname.replace(/^\//, '');
  return selected === '' ? 0 : Number(selected);
}

/** $ASSISTANT_TEST_REDIS_URL as a process that loaded jest-test-env.cjs sees it, starting from `value`. */
function urlAfterTestEnv(value: string | undefined): string {
  const env = { ...process.env };
  delete env['ASSISTANT_TEST_REDIS_URL'];
  if (value !== undefined) env['ASSISTANT_TEST_REDIS_URL'] = value;
  const result = spawnSync(process.execPath, ['-r', testEnv, '-p', 'process.env.ASSISTANT_TEST_REDIS_URL'], {
    env,
    encoding: 'utf8',
  });
  expect(result.stderr).toBe('');
  return result.stdout.trim();
}

describe('the test Redis (ASSISTANT_TEST_REDIS_URL)', () => {
  it('names a database other than 0 when the variable is not set', () => {
    const url = urlAfterTestEnv(undefined);

    expect(url).toMatch(/^redis:\/\//);
    expect(databaseOf(url)).not.toBe(0);
  });

  it('reads the database of a URL as Redis clients do', () => {
    expect(databaseOf('redis://127.0.0.1:6379')).toBe(0);
    expect(databaseOf('redis://127.0.0.1:6379/')).toBe(0);
    expect(databaseOf('redis://127.0.0.1:6379/0')).toBe(0);
    expect(databaseOf('redis://127.0.0.1:6379/15')).toBe(15);
    expect(databaseOf('redis://127.0.0.1:6379?db=0')).toBe(0);
  });

  it('keeps a URL the environment sets, so that a run can use another Redis', () => {
    expect(urlAfterTestEnv('redis://cache.test:6380/7')).toBe('redis://cache.test:6380/7');
  });

  it('reaches this suite, through the preset, naming a database other than 0', () => {
    const url = process.env['ASSISTANT_TEST_REDIS_URL'];

    expect(url).toBeDefined();
    // Red here when the environment sets a URL of database 0: the suites would write to it.
    expect({ url, database: databaseOf(url!) }).not.toMatchObject({ database: 0 });
  });

  it('is set up by every jest project: each uses the preset, whose setupFiles load jest-test-env.cjs', () => {
    expect(require(preset).setupFiles).toContain(testEnv);
    const configs = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
      cwd: workspaceRoot,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((file) => /(^|\/)jest\.config\.c?js$/.test(file) && !file.includes('node_modules/'));
    expect(configs.length).toBeGreaterThan(10);

    const problems: string[] = [];
    for (const file of configs) {
      const absolute = path.join(workspaceRoot, file);
      const config = require(absolute) as { preset?: string; rootDir?: string; setupFiles?: string[] };
      const presetPath =
        config.preset && path.resolve(config.rootDir ?? path.dirname(absolute), config.preset);
      if (presetPath !== preset) problems.push(`${file}: preset is ${config.preset ?? 'not set'}`);
      // A project's own setupFiles replace the preset's.
      if (config.setupFiles && !config.setupFiles.includes(testEnv))
        problems.push(`${file}: its setupFiles leave out jest-test-env.cjs`);
    }

    expect(problems).toEqual([]);
  });
});
