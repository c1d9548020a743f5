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
  main?: string;
  types?: string;
  files?: string[];
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
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

/**
 * The one published package for Node 20 only: better-sqlite3 12, storage's SQLite driver there (Node 22 and later
 * use Node's own SQLite). Its `engines` are what keeps npm from installing it elsewhere.
 */
const NODE20_ONLY = '@assistant/sqlite-node20';

/** The Node versions a package supports: the workspace's, or their Node 20 part for NODE20_ONLY. */
function expectedEngines(name: string): string | undefined {
  const workspaceNode = manifestOf('.').engines?.node ?? '';
  if (name !== NODE20_ONLY) return workspaceNode;
  // `^20.19.0 || ^22.16.0 || >=24.0.0` → `>=20.19.0 <22`: from the lowest Node 20 up to the next major supported.
  const [node20, next] = workspaceNode.split(' || ');
  return `>=${node20.replace(/^\^/, '')} <${/\d+/.exec(next)?.[0]}`;
}

it('each published package is public, ships only its build, and names the workspace’s Node versions', () => {
  const published = releaseGroup.map((name) => manifestOf(graph.nodes[name].data.root));
  const wrong = published.filter((manifest) => {
    // A package without a build (NODE20_ONLY: plain JavaScript) ships the files its main and types name instead.
    const entries = [manifest.main, manifest.types]
      .filter((entry): entry is string => entry !== undefined)
      .map((entry) => entry.replace(/^\.\//, ''));
    const shipsItsBuild =
      manifest.files?.includes('dist') ||
      (entries.length > 0 && entries.every((entry) => manifest.files?.includes(entry)));
    return (
      manifest.publishConfig?.access !== 'public' ||
      !shipsItsBuild ||
      manifest.files?.some((entry) => /^(src|test)/.test(entry)) ||
      manifest.engines?.node !== expectedEngines(manifest.name)
    );
  });
  expect(wrong.map((manifest) => manifest.name)).toEqual([]);
});

it('the package for Node 20 only is never a dependency, only an optional one (of storage), which npm skips elsewhere', () => {
  const published = releaseGroup.map((name) => manifestOf(graph.nodes[name].data.root));
  const dependents = published
    .filter((manifest) => manifest.dependencies?.[NODE20_ONLY] !== undefined)
    .map((manifest) => manifest.name);
  const optionalDependents = published
    .filter((manifest) => manifest.optionalDependencies?.[NODE20_ONLY] !== undefined)
    .map((manifest) => manifest.name);
  expect(dependents).toEqual([]);
  expect(optionalDependents).toContain('@assistant/storage');
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
