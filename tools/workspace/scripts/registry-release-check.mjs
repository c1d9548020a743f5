#!/usr/bin/env node
/**
 * The registry release check: every publishable package published, as packed from the current build and at the
 * workspace's version, to a registry of our own (Verdaccio on a free loopback port, services/verdaccio.sh installs
 * it), and then installed from there by a user on a given Node: `npm install @assistant/cli` into an empty folder
 * and `assistant --help`, and `npx -y @assistant/mcp --help` as MCP clients start the launcher. The registry serves
 * `@assistant/*` only from what was published to it and takes every other package from the registry npm uses here.
 * From Node 22 the install must hold no better-sqlite3 (storage's optional @assistant/sqlite-node20 is for Node 20).
 * The installed CLI also serves: `assistant serve` answers GET /api/v1/me and `assistant chat` asks it.
 * Prints one line per check; exits 1 if any failed. Run it after `npm run build`.
 *
 *   node tools/workspace/scripts/registry-release-check.mjs [--node <path to node>]
 *
 * --node: the Node to install and run with (default: this one), as in pack-install-check.mjs.
 * ASSISTANT_TEST_VERDACCIO: Verdaccio's bin/verdaccio (default: the one services/verdaccio.sh installs).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { packAll, publishablePackages } from './pack-install/packages.mjs';
import { nodeRuntime } from './pack-install/node-runtime.mjs';
import {
  checkMcpHelp,
  checkServeAnswers,
  checkSqliteInstall,
  startServe,
} from './pack-install/installed-checks.mjs';
import { checkChat } from './pack-install/cli-install.mjs';
import { addUser, startVerdaccio } from './registry-release/verdaccio.mjs';

const VERDACCIO =
  process.env.ASSISTANT_TEST_VERDACCIO ?? '/var/tmp/assistant-verdaccio/node_modules/verdaccio/bin/verdaccio';
/** The whole check, however the registry or the installs behave: past this it stops, and fails. */
const DEADLINE_MS = 25 * 60_000;

const root = new URL('../../../', import.meta.url).pathname;
const { values: options } = parseArgs({ options: { node: { type: 'string' } } });
const runtime = nodeRuntime(options.node ?? process.execPath);
const label = `registry release (node ${runtime.version})`;
const work = mkdtempSync(join(tmpdir(), 'assistant-registry-release-'));
const version = JSON.parse(readFileSync(join(root, 'apps/cli/package.json'), 'utf8')).version;

let registry;
/** Stops the registry and removes what the check made; the exit code says how it went. */
async function finish(code) {
  await registry?.stop();
  rmSync(work, { recursive: true, force: true });
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => void finish(1));
setTimeout(() => {
  console.log(`${label}: FAIL not done within ${DEADLINE_MS / 60_000} minutes`);
  void finish(1);
}, DEADLINE_MS).unref();

let failed = 0;
/** Runs one check and prints its line; a failed check is counted, and what depends on it is not run. */
async function check(name, action) {
  const started = Date.now();
  try {
    const detail = await action();
    console.log(`${label}: ok   ${name}${detail ? ` — ${detail}` : ''} (${Date.now() - started} ms)`);
    return true;
  } catch (error) {
    failed += 1;
    console.log(
      `${label}: FAIL ${name}\n${String(error instanceof Error ? error.message : error).replace(/^/gm, '    ')}`,
    );
    return false;
  }
}

function run(command, args, { cwd = root, env = runtime.env, timeout = 5 * 60_000 } = {}) {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout });
  if (result.status !== 0) {
    const reason = result.error ? result.error.message : `exit ${result.status}`;
    throw new Error(`${command} ${args.join(' ')} (${reason}):\n${result.stderr}${result.stdout}`.trimEnd());
  }
  return result.stdout;
}

function runAsync(command, args, { cwd = root, env = runtime.env, timeout = 5 * 60_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else
        reject(new Error(`${command} ${args.join(' ')} (${signal ?? `exit ${code}`}):\n${output}`.trimEnd()));
    });
  });
}

/** The runtime's environment pointed at our registry, with a cache of its own: nothing comes from elsewhere. */
function userEnv(cache) {
  return { ...runtime.env, npm_config_registry: registry.url, npm_config_cache: join(work, cache) };
}

const started = await check('Verdaccio starts on a loopback port', async () => {
  if (!existsSync(VERDACCIO)) {
    throw new Error(`${VERDACCIO} is missing: bash tools/workspace/services/verdaccio.sh installs it`);
  }
  const uplink = run('npm', ['config', 'get', 'registry']).trim();
  mkdirSync(join(work, 'registry'));
  registry = await startVerdaccio(VERDACCIO, join(work, 'registry'), uplink);
  return `${registry.url}, other packages from ${uplink}`;
});

const published =
  started &&
  (await check(`npm publish of every publishable package at ${version}`, async () => {
    if (!/^http:\/\/127\.0\.0\.1:\d+\/$/.test(registry.url))
      throw new Error(`not a loopback registry: ${registry.url}`);
    const token = await addUser(registry.url, 'release-check');
    const npmrc = join(work, 'publish.npmrc');
    const host = registry.url.replace(/^http:/, '');
    writeFileSync(npmrc, `registry=${registry.url}\n${host}:_authToken=${token}\n`);
    mkdirSync(join(work, 'tarballs'));
    const tarballs = packAll(root, publishablePackages(root), join(work, 'tarballs'));
    // A few at a time: each `npm publish` mostly waits on npm's start and the registry.
    const queue = tarballs.map(({ tarball }) => tarball);
    const publishNext = async () => {
      for (let tarball = queue.shift(); tarball; tarball = queue.shift()) {
        await runAsync(
          'npm',
          ['publish', tarball, '--registry', registry.url, '--userconfig', npmrc, '--ignore-scripts'],
          {
            env: { ...process.env, npm_config_cache: join(work, 'publish-cache') },
          },
        );
      }
    };
    await Promise.all([publishNext(), publishNext(), publishNext()]);
    const served = run('npm', ['view', '@assistant/cli', 'version', '--registry', registry.url], {
      env: userEnv('view-cache'),
    }).trim();
    if (served !== version) throw new Error(`the registry serves @assistant/cli ${served}, not ${version}`);
    return `${tarballs.length} packages`;
  }));

if (published) {
  const app = join(work, 'app');
  const installed = await check('npm install @assistant/cli from the registry into an empty folder', () => {
    mkdirSync(app);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'registry-release-check', private: true }),
    );
    run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '@assistant/cli'], {
      cwd: app,
      env: userEnv('cache'),
      timeout: 15 * 60_000,
    });
    const cli = JSON.parse(readFileSync(join(app, 'node_modules/@assistant/cli/package.json'), 'utf8'));
    if (cli.version !== version) throw new Error(`installed @assistant/cli ${cli.version}, not ${version}`);
    return `@assistant/cli ${cli.version}`;
  });
  if (installed) {
    // The registry's packuments, as a user gets them: npm leaves @assistant/sqlite-node20 out from Node 22.
    await check('the SQLite driver for this Node (from Node 22: no better-sqlite3, nothing compiled)', () =>
      checkSqliteInstall(app, runtime),
    );
    await check('assistant --help', () => {
      const help = run('npx', ['--yes=false', 'assistant', '--help'], { cwd: app, env: userEnv('cache') });
      const missing = [`@assistant/cli/${version}`, 'serve', 'chat', 'pair'].filter(
        (word) => !help.includes(word),
      );
      if (missing.length > 0) throw new Error(`its help lacks ${missing.join(', ')}:\n${help}`);
      return 'lists serve, chat and pair';
    });
    const user = { ...runtime, env: userEnv('cache') };
    let server;
    const served = await check('assistant serve starts', async () => {
      server = await startServe(app, user, join(work, 'data'));
      return server.url;
    });
    if (served) {
      await check('assistant serve answers', () => checkServeAnswers(server));
      await check('assistant chat asks it', () => checkChat(app, user, server));
      await server.stop();
    }
  }
  await check('npx -y @assistant/mcp --help in an empty folder, as MCP clients start it', () => {
    const folder = join(work, 'mcp-client');
    mkdirSync(folder);
    const detail = checkMcpHelp(folder, { ...runtime, env: userEnv('npx-cache') }, '@assistant/mcp', {
      fetch: true,
    });
    const shown = spawnSync('npx', ['-y', '@assistant/mcp', '--version'], {
      cwd: folder,
      env: userEnv('npx-cache'),
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (!`${shown.stdout}${shown.stderr}`.includes(version)) {
      throw new Error(`npx -y @assistant/mcp --version is not ${version}:\n${shown.stderr}${shown.stdout}`);
    }
    return `${detail}, version ${version}`;
  });
}

if (failed > 0 && registry)
  console.log(`${label}: the registry's log:\n${registry.log().replace(/^/gm, '    ')}`);
console.log(`${label}: ${failed === 0 ? 'all checks passed' : `${failed} check(s) failed`}`);
await finish(failed === 0 ? 0 : 1);
