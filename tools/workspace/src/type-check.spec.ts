/**
 * Jest compiles TypeScript with SWC, which strips types without checking them, and each project's build
 * compiles only its sources: without the `typecheck` target a spec with a type error runs green. These tests
 * keep every TypeScript file of every project under that target, and the target in `npm test`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { ProjectGraph } from '@nx/devkit';
import * as ts from 'typescript';

// Before Nx is loaded (hence `await import()` below): nothing here may start or talk to an Nx daemon.
process.env.NX_DAEMON = 'false';
process.env.NX_NO_CLOUD = 'true';

let workspaceRoot: string;
let graph: ProjectGraph;

beforeAll(async () => {
  const devkit = await import('@nx/devkit');
  workspaceRoot = devkit.workspaceRoot;
  graph = await devkit.createProjectGraphAsync({ exitOnError: false });
});

/** The project's TypeScript files, tracked or new (not ignored), as absolute paths. */
function typeScriptFilesOf(projectRoot: string): string[] {
  const listed = execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', '--', projectRoot],
    { cwd: workspaceRoot, encoding: 'utf8' },
  );
  return listed
    .split('\n')
    .filter((file) => /\.(c|m)?ts$/.test(file) && !file.endsWith('.d.ts'))
    .map((file) => path.join(workspaceRoot, file));
}

/** The files `tsc -p <config>` checks as roots (its `include`, resolved). */
function filesOfTsconfig(configPath: string): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(configPath, undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  return parsed!.fileNames.map((file) => path.resolve(file));
}

describe('the typecheck target', () => {
  it('covers every TypeScript file of every project, specs and test support included', () => {
    const problems: string[] = [];
    for (const [name, { data }] of Object.entries(graph.nodes)) {
      const files = typeScriptFilesOf(data.root);
      if (files.length === 0) continue;
      const command = String(data.targets?.['typecheck']?.options?.command ?? '');
      // One `tsc --noEmit -p <tsconfig>`, or several joined by `&&` (a browser script has its own, DOM, config).
      const steps = command.split(' && ').map((step) => /^tsc --noEmit -p (\S+)$/.exec(step)?.[1]);
      const configs = steps.filter((config): config is string => config !== undefined);
      if (configs.length === 0 || configs.length !== steps.length) {
        problems.push(`${name}: no typecheck target running tsc --noEmit -p <tsconfig> (found "${command}")`);
        continue;
      }
      const checked = new Set(configs.flatMap((config) => filesOfTsconfig(path.join(workspaceRoot, config))));
      for (const file of files.filter((f) => !checked.has(f)))
        problems.push(
          `${name}: ${path.relative(workspaceRoot, file)} is not type-checked by ${configs.join(' or ')}`,
        );
    }

    expect(problems).toEqual([]);
  });
});

describe('npm test (tools/workspace/scripts/test-all.mjs)', () => {
  let dir: string;
  let services: string;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'test-all-'));
    // Stands in for `npx`: records each `npx nx …` call instead of running it, and fails the one asked to.
    writeFileSync(
      path.join(dir, 'npx'),
      '#!/bin/sh\necho "$*" >> "$NPX_LOG"\ncase "$*" in *"-t $NPX_FAIL "*) exit 1 ;; esac\nexit 0\n',
    );
    chmodSync(path.join(dir, 'npx'), 0o755);
    // The services it starts first: stand-ins, so that this spec starts nothing real.
    services = path.join(dir, 'services');
    mkdirSync(services);
    writeFileSync(path.join(services, 'cache.sh'), 'echo started >> "$NPX_LOG.services"\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function runTestAll(failTarget = '', timeout?: number) {
    const log = path.join(dir, 'npx.log');
    writeFileSync(log, '');
    const result = spawnSync(
      process.execPath,
      [path.join(workspaceRoot, 'tools/workspace/scripts/test-all.mjs')],
      {
        cwd: workspaceRoot,
        env: {
          ...process.env,
          PATH: `${dir}${path.delimiter}${process.env.PATH}`,
          NPX_LOG: log,
          NPX_FAIL: failTarget,
          ASSISTANT_TEST_SERVICES_DIR: services,
          ASSISTANT_TEST_SKIP_NODE_VERSIONS: '1',
        },
        encoding: 'utf8',
        timeout,
      },
    );
    const targets = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => /run-many -t (.+?) --/.exec(line)?.[1]);
    const summary = result.stdout.trim().split('\n').at(-1);
    return { status: result.status, summary, targets, stderr: result.stderr };
  }

  it('starts the services, then type-checks every project after the build, before lint and the tests', () => {
    const { status, summary, targets } = runTestAll();

    expect(readFileSync(path.join(dir, 'npx.log.services'), 'utf8')).toBe('started\n');
    expect(targets).toEqual(['build', 'typecheck', 'lint', 'test e2e']);
    expect({ status, summary }).toEqual({ status: 0, summary: '0 passed, 0 failed' });
  });

  it('counts a type error as a failed check and exits non-zero', () => {
    const { status, summary } = runTestAll('typecheck');

    expect({ status, summary }).toEqual({ status: 1, summary: '0 passed, 1 failed' });
  });

  it('stops at a service that cannot start, with one line naming it, and counts it as failed', () => {
    writeFileSync(path.join(services, 'mail.sh'), 'echo "dovecot: port 10143 is taken" >&2\nexit 1\n');
    writeFileSync(path.join(services, 'mail.packages'), 'bash\n');

    const { status, summary, targets, stderr } = runTestAll();

    expect(stderr.trim().split('\n')).toEqual([
      'test services: mail did not start: dovecot: port 10143 is taken',
    ]);
    expect(targets).toEqual([]);
    expect({ status, summary }).toEqual({ status: 1, summary: '0 passed, 1 failed' });
  });

  it("goes on past a service whose daemon keeps the script's output open (as Dovecot does)", () => {
    // The daemon inherits the script's stdout and stderr and outlives it by far.
    writeFileSync(path.join(services, 'mail.sh'), 'sleep 120 &\necho $! > "$NPX_LOG.daemon"\n');

    try {
      const { status, targets } = runTestAll('', 20_000);

      expect(targets).toEqual(['build', 'typecheck', 'lint', 'test e2e']);
      expect(status).toBe(0);
    } finally {
      process.kill(Number(readFileSync(path.join(dir, 'npx.log.daemon'), 'utf8')));
    }
  }, 30_000);
});
