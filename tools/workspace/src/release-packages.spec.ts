/**
 * What `nx release` versions and publishes (nx.json's release group) is exactly what npm would publish (the
 * workspace packages not marked private), which is also what the pack-and-install check
 * (scripts/pack-install-check.mjs) packs and installs. Each of them is public on npm, ships only its build, and runs
 * on the Node versions the workspace supports.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ProjectGraph } from '@nx/devkit';

// Before Nx is loaded (hence `await import()` below): nothing here may start or talk to an Nx daemon.
process.env.NX_DAEMON = 'false';
process.env.NX_NO_CLOUD = 'true';

const WORKSPACE_ROOT = path.join(__dirname, '..', '..', '..');

interface Manifest {
  name: string;
  private?: boolean;
  files?: string[];
  engines?: { node?: string };
  publishConfig?: { access?: string };
}

function manifestOf(root: string): Manifest {
  return JSON.parse(readFileSync(path.join(WORKSPACE_ROOT, root, 'package.json'), 'utf8')) as Manifest;
}

let graph: ProjectGraph;
let releaseGroup: string[];

beforeAll(async () => {
  const devkit = await import('@nx/devkit');
  const { findMatchingProjects } = await import('nx/src/utils/find-matching-projects');
  graph = await devkit.createProjectGraphAsync({ exitOnError: false });
  const nxJson = JSON.parse(readFileSync(path.join(WORKSPACE_ROOT, 'nx.json'), 'utf8')) as {
    release: { projects: string[]; projectsRelationship: string };
  };
  expect(nxJson.release.projectsRelationship).toBe('fixed');
  releaseGroup = findMatchingProjects(nxJson.release.projects, graph.nodes).sort();
});

it('nx release publishes exactly the workspace packages that are not private', () => {
  const notPrivate = Object.values(graph.nodes)
    .filter((node) => !manifestOf(node.data.root).private)
    .map((node) => node.name)
    .sort();
  expect(releaseGroup).toEqual(notPrivate);
});

it('each published package is public, ships only its build, and names the workspace’s Node versions', () => {
  const workspaceNode = manifestOf('.').engines?.node;
  const published = releaseGroup.map((name) => manifestOf(graph.nodes[name].data.root));
  const wrong = published.filter(
    (manifest) =>
      manifest.publishConfig?.access !== 'public' ||
      !manifest.files?.includes('dist') ||
      manifest.files.some((entry) => /^(src|test)/.test(entry)) ||
      manifest.engines?.node !== workspaceNode,
  );
  expect(wrong.map((manifest) => manifest.name)).toEqual([]);
});
