/**
 * The e2e suites start the built apps as child processes and never import them, so no import tells Nx that
 * apps/api-e2e depends on them: apps/api-e2e/package.json names them as devDependencies instead. Without that
 * edge `nx affected` after a server change skips the e2e suites, and a bare `nx e2e` runs stale builds.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { ProjectGraph } from '@nx/devkit';

// Before Nx is loaded (hence `await import()` below): nothing here may start or talk to an Nx daemon.
process.env.NX_DAEMON = 'false';
process.env.NX_NO_CLOUD = 'true';

const E2E = '@assistant/api-e2e';
/** The built programs apps/api-e2e/src/support/processes.ts starts (its `BUILT`). */
const APPS_THE_E2E_RUNS = ['@assistant/cli', '@assistant/hosted-api', '@assistant/self-host-server'];
/** …and the MCP launcher, which talks to those servers over HTTP and never imports @assistant/server. */
const LAUNCHER = '@assistant/mcp';

let workspaceRoot: string;
let graph: ProjectGraph;

beforeAll(async () => {
  const devkit = await import('@nx/devkit');
  workspaceRoot = devkit.workspaceRoot;
  graph = await devkit.createProjectGraphAsync({ exitOnError: false });
});

function nx(...args: string[]): string {
  return execFileSync(path.join(workspaceRoot, 'node_modules/.bin/nx'), args, {
    cwd: workspaceRoot,
    env: process.env,
    encoding: 'utf8',
  });
}

/** Workspace projects `project` depends on directly (external npm nodes left out). */
function directDependencies(project: string): string[] {
  return (graph.dependencies[project] ?? []).map((d) => d.target).filter((target) => target in graph.nodes);
}

function transitiveDependencies(project: string): Set<string> {
  const seen = new Set<string>();
  const pending = directDependencies(project);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (seen.has(next)) continue;
    seen.add(next);
    pending.push(...directDependencies(next));
  }
  return seen;
}

describe('the e2e project in the Nx project graph', () => {
  it('depends on the apps it runs, and through them on @assistant/server', () => {
    expect(directDependencies(E2E)).toEqual(expect.arrayContaining([...APPS_THE_E2E_RUNS, LAUNCHER]));
    for (const app of APPS_THE_E2E_RUNS) expect(transitiveDependencies(app)).toContain('@assistant/server');
    expect(transitiveDependencies(E2E)).toContain('@assistant/server');
  });

  it('is affected by a change to libs/server', () => {
    const affected = nx('show', 'projects', '--affected', '--files=libs/server/src/index.ts', '--json');

    expect(JSON.parse(affected)).toContain(E2E);
  });

  it('builds every app it runs before a bare `nx e2e @assistant/api-e2e`', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'e2e-task-graph-'));
    try {
      const file = path.join(dir, 'tasks.json');
      nx('e2e', E2E, `--graph=${file}`);
      const { tasks } = JSON.parse(readFileSync(file, 'utf8')) as {
        tasks: { dependencies: Record<string, string[]> };
      };

      expect(tasks.dependencies[`${E2E}:e2e`]).toEqual(
        expect.arrayContaining([...APPS_THE_E2E_RUNS, LAUNCHER].map((app) => `${app}:build`)),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
