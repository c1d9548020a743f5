/**
 * `npm install -g @assistant/cli` as a self-hoster's first install, from the packed tarballs: the CLI's tarball
 * (with those of any package of ours it needs at run time) installed alone into an empty folder, with an empty npm
 * cache, so that every other package comes from the registry as it would the first time. Held to the install target
 * (issue 23, decision 0013): at most 100 MB and 250 packages, and from Node 22 on nothing compiled. The commands then
 * run from there, where nothing but what the CLI declares is installed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import { installClosure } from './install-closure.mjs';
import { installTarballs } from './installed-checks.mjs';

export const CLI_INSTALL_LIMITS = { megabytes: 100, packages: 250 };

/** The first Node major on which the CLI needs no native module built (SQLite is Node's own from 22). */
const NOTHING_COMPILED_FROM_NODE = 22;

/**
 * The tarballs that installing `name` takes from ours: its own, and, through its dependencies and optional
 * dependencies, those of every package of ours it reaches (`packed`: `{ name, tarball }` of each tarball).
 */
export function tarballsInstalledWith(name, packed) {
  const byName = new Map(packed.map((entry) => [entry.name, entry.tarball]));
  const wanted = new Set();
  const pending = [name];
  while (pending.length > 0) {
    const next = pending.pop();
    if (wanted.has(next) || !byName.has(next)) continue;
    wanted.add(next);
    const manifest = JSON.parse(
      spawnSync('tar', ['-xOzf', byName.get(next), 'package/package.json'], { encoding: 'utf8' }).stdout,
    );
    pending.push(...Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies }));
  }
  return [...wanted].map((packageName) => byName.get(packageName));
}

/** Installs `tarballs` into `folder` with an npm cache of its own, empty; returns the wall time in ms. */
export function installCold(folder, runtime, tarballs, cache) {
  mkdirSync(cache, { recursive: true });
  const started = Date.now();
  installTarballs(folder, { ...runtime, env: { ...runtime.env, npm_config_cache: cache } }, tarballs);
  return Date.now() - started;
}

/** What under `folder`/node_modules shows a native build: node-gyp's build folders, packages with a binding.gyp. */
export function nativeBuilds(folder) {
  return readdirSync(join(folder, 'node_modules'), { recursive: true })
    .map((path) => String(path).split(sep).join('/'))
    .filter((path) => /(^|\/)build\/config\.gypi$/.test(path) || /(^|\/)binding\.gyp$/.test(path))
    .filter(
      (path) =>
        !path.endsWith('binding.gyp') || existsSync(join(folder, 'node_modules', path, '..', 'package.json')),
    );
}

/**
 * The CLI's install in `folder` against the install target: its packages and size (what `npm install -g` brings:
 * the closure of its dependencies), nothing compiled from Node 22 on. Throws past a limit; returns the figures.
 */
export function checkCliInstallTarget(folder, runtime) {
  const { packages, bytes } = installClosure(folder, '@assistant/cli');
  const megabytes = bytes / 1e6;
  const figures = `${packages.size} packages, ${megabytes.toFixed(1)} MB`;
  const problems = [];
  if (packages.size > CLI_INSTALL_LIMITS.packages)
    problems.push(`more than ${CLI_INSTALL_LIMITS.packages} packages`);
  if (megabytes > CLI_INSTALL_LIMITS.megabytes) problems.push(`more than ${CLI_INSTALL_LIMITS.megabytes} MB`);
  const major = Number(/v(\d+)/.exec(runtime.version)?.[1]);
  if (major >= NOTHING_COMPILED_FROM_NODE) {
    const built = nativeBuilds(folder);
    if (built.length > 0) problems.push(`a native build on Node ${major}: ${built.join(', ')}`);
  }
  if (problems.length > 0) throw new Error(`${figures}: ${problems.join('; ')}`);
  return figures;
}

/** The names of the packages of the CLI's install (as `installClosure` keys them, without their versions). */
export function installedPackageNames(folder) {
  return [...installClosure(folder, '@assistant/cli').packages.keys()].map((key) =>
    key.slice(0, key.lastIndexOf('@')),
  );
}

function runCli(folder, runtime, args) {
  const result = spawnSync('npx', ['--yes=false', 'assistant', ...args], {
    cwd: folder,
    env: runtime.env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (result.status !== 0) {
    const reason = result.error ? result.error.message : `exit ${result.status}`;
    throw new Error(`assistant ${args.join(' ')} (${reason}):\n${result.stderr}${result.stdout}`.trimEnd());
  }
  return result.stdout;
}

/** `assistant chat` asks the running `server` (the built-in model) and prints its answer. */
export function checkChat(folder, runtime, server) {
  const answer = runCli(folder, runtime, ['chat', 'thank you', '--url', server.url, '--token', server.token]);
  if (answer !== "You're welcome.\n") throw new Error(`assistant chat answered ${JSON.stringify(answer)}`);
  return `"thank you" → ${JSON.stringify(answer.trim())}`;
}

/** `assistant --help` (oclif, from the bundle) lists the commands. */
export function checkHelp(folder, runtime) {
  const help = runCli(folder, runtime, ['--help']);
  const missing = ['serve', 'chat', 'pair', 'backup', 'accounts'].filter((word) => !help.includes(word));
  if (missing.length > 0) throw new Error(`its help lacks ${missing.join(', ')}:\n${help}`);
  return 'lists serve, chat, pair, backup, accounts';
}
