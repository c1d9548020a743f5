/**
 * What `nx release` versions and publishes (nx.json's release group) is exactly what npm would publish (the
 * workspace packages not marked private), which is also what the pack-and-install check
 * (scripts/pack-install-check.mjs) packs and installs. Each of them is public on npm, ships only its build, and runs
 * on the Node versions the workspace supports. Each carries the workspace's licence (MIT, the Assistant authors), a
 * README that says what it is, how to install it and shows an example, and names the repository it comes from.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ProjectGraph } from '@nx/devkit';

// Before Nx is loaded (hence `await import()` below): nothing here may start or talk to an Nx daemon.
process.env.NX_DAEMON = 'false';
process.env.NX_NO_CLOUD = 'true';

const WORKSPACE_ROOT = path.join(__dirname, '..', '..', '..');

interface Manifest {
  name: string;
  private?: boolean;
  license?: string;
  files?: string[];
  engines?: { node?: string };
  publishConfig?: { access?: string };
  repository?: { type?: string; url?: string; directory?: string };
  homepage?: string;
  keywords?: string[];
}

/** Who holds the copyright of every package: the licence names them, and every LICENSE is the root's. */
const COPYRIGHT = /^Copyright \(c\) \d{4} the Assistant authors$/m;

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

/** The published packages with their folders. */
function publishedPackages(): { root: string; manifest: Manifest }[] {
  return releaseGroup.map((name) => {
    const root = graph.nodes[name].data.root;
    return { root, manifest: manifestOf(root) };
  });
}

function readIn(root: string, file: string): string | undefined {
  const full = path.join(WORKSPACE_ROOT, root, file);
  return existsSync(full) ? readFileSync(full, 'utf8') : undefined;
}

/** The fenced code blocks of a Markdown text: their language and their text. */
function codeBlocks(markdown: string): { lang: string; code: string }[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((match) => ({
    lang: match[1],
    code: match[2],
  }));
}

it('the workspace is MIT-licensed to the Assistant authors, and each published package carries that LICENSE', () => {
  const license = readIn('.', 'LICENSE') ?? '';
  expect(license.startsWith('MIT License\n')).toBe(true);
  expect(license).toMatch(COPYRIGHT);
  expect(manifestOf('.').license).toBe('MIT');
  const wrong = publishedPackages()
    .filter(({ root, manifest }) => manifest.license !== 'MIT' || readIn(root, 'LICENSE') !== license)
    .map(({ manifest }) => manifest.name);
  expect(wrong).toEqual([]);
});

it('every workspace package, published or not, carries the root LICENSE', () => {
  const license = readIn('.', 'LICENSE');
  const wrong = Object.values(graph.nodes)
    .filter((node) => readIn(node.data.root, 'LICENSE') !== license)
    .map((node) => node.name);
  expect(wrong).toEqual([]);
});

it('each published package has a README: what it is, how to install it, and an example', () => {
  const problems = publishedPackages().flatMap(({ root, manifest }) => {
    const readme = readIn(root, 'README.md');
    if (readme === undefined) return [`${manifest.name}: no README.md`];
    const blocks = codeBlocks(readme);
    const install = new RegExp(
      `^(npm install (--global |-g )?|npx -y )${manifest.name.replace('/', '\\/')}( |$)`,
      'm',
    );
    const installBlock = blocks.find((block) => block.lang === 'sh' && install.test(block.code));
    const examples = blocks.filter((block) => block !== installBlock && block.code.trim() !== '');
    return [
      ...(readme.startsWith(`# ${manifest.name}\n\n`)
        ? []
        : [`${manifest.name}: does not start with its name`]),
      // What it is: a paragraph of prose right under the title.
      ...(/^# .*\n\n[A-Z`[]/.test(readme) ? [] : [`${manifest.name}: no description under the title`]),
      ...(installBlock ? [] : [`${manifest.name}: no sh block installing it`]),
      ...(examples.length > 0 ? [] : [`${manifest.name}: no example`]),
      ...(/\[LICENSE\]\(LICENSE\)/.test(readme) ? [] : [`${manifest.name}: does not point at its LICENSE`]),
    ];
  });
  expect(problems).toEqual([]);
});

it('the CLI’s and the MCP launcher’s READMEs show the commands and MCP clients’ configurations', () => {
  const readmeOf = (name: string) => readIn(graph.nodes[name].data.root, 'README.md') ?? '';
  for (const name of ['@assistant/cli', '@assistant/mcp']) {
    const blocks = codeBlocks(readmeOf(name));
    const configs = blocks
      .filter((block) => block.lang === 'json')
      .map((block) => JSON.parse(block.code) as Record<string, Record<string, { args?: string[] }>>);
    // Claude Desktop and Cursor read `mcpServers`, VS Code `servers`: both, each starting the launcher with npx.
    for (const key of ['mcpServers', 'servers']) {
      const servers = configs.flatMap((config) => Object.values(config[key] ?? {}));
      expect({ name, key, args: servers.map((server) => server.args?.slice(0, 2)) }).toEqual({
        name,
        key,
        args: [['-y', '@assistant/mcp']],
      });
    }
  }
  const cli = readmeOf('@assistant/cli');
  for (const command of ['assistant serve', 'assistant chat', 'assistant pair'])
    expect({ command, shown: cli.includes(command) }).toEqual({ command, shown: true });
});

it('each published package names the repository, its folder there, a homepage and keywords', () => {
  const workspace = manifestOf('.');
  const repositoryUrl = workspace.repository?.url ?? '';
  expect(repositoryUrl).toMatch(/^git\+https:\/\/.+\.git$/);
  // The web address of the repository: the git URL without `git+` and `.git`.
  const web = repositoryUrl.replace(/^git\+/, '').replace(/\.git$/, '');
  expect(workspace.homepage).toBe(`${web}#readme`);
  const wrong = publishedPackages()
    .map(({ root, manifest }) => ({
      name: manifest.name,
      problems: [
        ...(manifest.repository?.type === 'git' &&
        manifest.repository.url === repositoryUrl &&
        manifest.repository.directory === root
          ? []
          : ['repository']),
        ...(manifest.homepage === `${web}/tree/main/${root}#readme` ? [] : ['homepage']),
        ...(Array.isArray(manifest.keywords) &&
        manifest.keywords.length >= 3 &&
        manifest.keywords.includes('assistant')
          ? []
          : ['keywords']),
        ...(['README.md', 'LICENSE'].every((file) => manifest.files?.includes(file)) ? [] : ['files']),
      ],
    }))
    .filter((entry) => entry.problems.length > 0);
  expect(wrong).toEqual([]);
});
