/**
 * What a user does with the tarballs in an empty folder, on a given Node (see node-runtime.mjs): install them
 * (third-party dependencies from the registry, ours only from the tarballs), start `assistant serve` and call it,
 * ask `assistant-mcp` for its help, and import the client and the contracts from CommonJS and from ESM.
 * Each function throws an Error that says what went wrong.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, sep } from 'node:path';

const SERVE_START_TIMEOUT_MS = 90_000;

function runIn(folder, runtime, command, args, timeout = 120_000) {
  return spawnSync(command, args, { cwd: folder, env: runtime.env, encoding: 'utf8', timeout });
}

function failure(what, result) {
  const reason = result.error ? result.error.message : `exit ${result.status}`;
  return new Error(`${what} (${reason}):\n${result.stderr ?? ''}${result.stdout ?? ''}`.trimEnd());
}

/** The package.json of a tarball made by `npm pack`. */
function manifestOf(tarball) {
  const result = spawnSync('tar', ['-xOzf', tarball, 'package/package.json'], { encoding: 'utf8' });
  if (result.status !== 0) throw failure(`cannot read package.json of ${tarball}`, result);
  return JSON.parse(result.stdout);
}

/**
 * Installs the tarballs into a new folder, as a user's install of our packages from the registry would, with
 * third-party dependencies from the registry and ours from the tarballs only: a package that ours name as an
 * optional dependency (@assistant/sqlite-node20) is an optional dependency of the folder too, so that npm leaves it
 * out where its `engines` do not match, as it does for a user. Native modules are built there for the runtime's Node.
 */
export function installTarballs(folder, runtime, tarballs) {
  mkdirSync(folder, { recursive: true });
  const packages = tarballs.map((tarball) => ({ tarball, manifest: manifestOf(tarball) }));
  const optional = new Set(
    packages.flatMap(({ manifest }) => Object.keys(manifest.optionalDependencies ?? {})),
  );
  const specs = (wanted) =>
    Object.fromEntries(
      packages
        .filter(({ manifest }) => optional.has(manifest.name) === wanted)
        .map(({ tarball, manifest }) => [manifest.name, `file:${tarball}`]),
    );
  writeFileSync(
    join(folder, 'package.json'),
    JSON.stringify({
      name: 'pack-install-check',
      private: true,
      dependencies: specs(false),
      optionalDependencies: specs(true),
    }),
  );
  const result = runIn(
    folder,
    runtime,
    'npm',
    ['install', '--no-audit', '--no-fund', '--loglevel=error'],
    15 * 60_000,
  );
  if (result.status !== 0) throw failure('npm install of the tarballs failed', result);
  // Every package of ours in the tree, however deep, comes from a tarball: none was taken from the registry.
  const locked = JSON.parse(readFileSync(join(folder, 'package-lock.json'), 'utf8')).packages;
  const fromRegistry = Object.entries(locked)
    .filter(
      ([path, entry]) =>
        /(^|\/)node_modules\/@assistant\/[^/]+$/.test(path) && !/^file:/.test(entry.resolved ?? ''),
    )
    .map(([path, entry]) => `${path} (${entry.resolved})`);
  if (fromRegistry.length > 0) throw new Error(`not installed from a tarball: ${fromRegistry.join(', ')}`);
  return tarballs.map((tarball) => basename(tarball));
}

/**
 * The packages named `names` installed in `folder`, however deep and under whatever alias, as paths: from npm's
 * lockfile (which lists an optional package it left out too) and present on disk.
 */
function installedPackages(folder, names) {
  const locked = JSON.parse(readFileSync(join(folder, 'package-lock.json'), 'utf8')).packages;
  return Object.entries(locked)
    .filter(([path, entry]) => names.includes(entry.name ?? path.replace(/^.*node_modules\//, '')))
    .map(([path]) => path)
    .filter((path) => path !== '' && existsSync(join(folder, path)));
}

/** What node-gyp leaves in a package it compiled: `build/config.gypi`, anywhere under `folder`/node_modules. */
function compiledPackages(folder) {
  return readdirSync(join(folder, 'node_modules'), { recursive: true })
    .map((path) => String(path).split(sep).join('/'))
    .filter((path) => path.endsWith('/build/config.gypi'));
}

/**
 * What the install holds for SQLite on this Node (storage's sqliteDriver takes Node's own node:sqlite from Node
 * 22, @assistant/sqlite-node20 on Node 20): from Node 22 on, no better-sqlite3 under any name, no
 * @assistant/sqlite-node20 (npm left it out for its engines) and nothing compiled by node-gyp; on Node 20,
 * @assistant/sqlite-node20 with better-sqlite3 12, which loads.
 */
export function checkSqliteInstall(folder, runtime) {
  const major = Number(/v(\d+)/.exec(runtime.version)?.[1]);
  if (major >= 22) {
    const unwanted = [
      ...installedPackages(folder, ['better-sqlite3', '@assistant/sqlite-node20']),
      ...compiledPackages(folder),
    ];
    if (unwanted.length > 0) throw new Error(`installed on Node ${runtime.version}: ${unwanted.join(', ')}`);
    return 'no better-sqlite3, no @assistant/sqlite-node20, nothing compiled';
  }
  const script = `const Database = require('@assistant/sqlite-node20');
const { version } = new Database(':memory:').prepare('SELECT sqlite_version() AS version').get();
const from = require.resolve('@assistant/sqlite-node20');
console.log(require(require.resolve('better-sqlite3-node20/package.json', { paths: [from] })).version, version);`;
  const result = runIn(folder, runtime, runtime.node, ['-e', script]);
  if (result.status !== 0) throw failure('@assistant/sqlite-node20 does not load on this Node', result);
  const [betterSqlite3, sqlite] = result.stdout.trim().split(' ');
  if (!betterSqlite3.startsWith('12.')) throw new Error(`better-sqlite3 is ${betterSqlite3}, not 12.x`);
  return `@assistant/sqlite-node20: better-sqlite3 ${betterSqlite3} (SQLite ${sqlite})`;
}

/**
 * A plain script of the user's opens an SQLite database with @assistant/storage alone (its public API), writes
 * and reads it: on Node 22 and later on node:sqlite (nothing else is installed, see checkSqliteInstall), with no
 * warning printed; on Node 20 on better-sqlite3, which it must have loaded.
 */
export function checkStorageOnSqlite(folder, runtime) {
  const script = `const { mkdtempSync, rmSync } = require('node:fs');
const { join } = require('node:path');
const { openStorage } = require('@assistant/storage');
const dir = mkdtempSync(join(require('node:os').tmpdir(), 'pack-install-storage-'));
(async () => {
  const storage = await openStorage({ dialect: 'sqlite', file: join(dir, 'check.sqlite') }, { migrations: 'run' });
  const user = await storage.users.create({ email: 'check@example.com', displayName: 'Check' });
  const found = await storage.users.findById(user.id);
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
  const betterSqlite3 = Object.keys(require.cache).some((file) => file.endsWith('better_sqlite3.node'));
  console.log(JSON.stringify({ email: found && found.email, betterSqlite3 }));
})();`;
  const result = runIn(folder, runtime, runtime.node, ['-e', script]);
  if (result.status !== 0) throw failure('@assistant/storage does not open an SQLite database', result);
  if (result.stderr !== '') throw new Error(`@assistant/storage printed on stderr:\n${result.stderr}`);
  const { email, betterSqlite3 } = JSON.parse(result.stdout);
  if (email !== 'check@example.com')
    throw new Error(`the stored account did not read back: ${result.stdout}`);
  const major = Number(/v(\d+)/.exec(runtime.version)?.[1]);
  if (betterSqlite3 !== major < 22)
    throw new Error(`better-sqlite3 ${betterSqlite3 ? 'loaded' : 'not loaded'} on Node ${runtime.version}`);
  return `migrated, wrote and read an account on ${major < 22 ? 'better-sqlite3' : 'node:sqlite'}`;
}

/**
 * `npx assistant serve` (or `command`, which takes the same flags) on a free port with its own data directory;
 * resolves with `{ url, token, stop }` once it says where it runs. It runs in a process group of its own, so that
 * stopping it stops npx's children too.
 */
export function startServe(folder, runtime, dataDir, command = ['npx', '--yes=false', 'assistant', 'serve']) {
  const [file, ...args] = command;
  const child = spawn(file, [...args, '--port', '0', '--data-dir', dataDir], {
    cwd: folder,
    env: runtime.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const exited = new Promise((done) => child.on('close', (code) => done(code)));
  const stop = async () => {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    const timer = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      void stop();
      reject(
        new Error(`assistant serve did not start within ${SERVE_START_TIMEOUT_MS / 1000} s:\n${output}`),
      );
    }, SERVE_START_TIMEOUT_MS);
    const onData = (chunk) => {
      output += chunk;
      const match = /running at (http:\/\/[\w.:[\]]+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      const { token } = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
      resolve({ url: match[1], token, stop });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`assistant serve exited with ${code} before it ran:\n${output}`));
    });
  });
}

/** GET /api/v1/me with the owner's token: 200 and the owner's account. */
export async function checkServeAnswers(server) {
  const response = await fetch(`${server.url}/api/v1/me`, {
    headers: { authorization: `Bearer ${server.token}` },
  });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`GET /api/v1/me answered ${response.status}: ${body}`);
  const account = JSON.parse(body);
  if (typeof account.id !== 'string') throw new Error(`GET /api/v1/me answered no account: ${body}`);
  return `GET /api/v1/me → 200 (${account.id})`;
}

/**
 * `npx <spec> --help` prints the launcher's usage on stderr, exit 0, and nothing on stdout (stdout carries
 * JSON-RPC only). `spec` is the command (`assistant-mcp`) or the package, as MCP clients' `npx -y @assistant/mcp`.
 * With `fetch`, npx may fetch the package from the registry (`-y`, as MCP clients run it); otherwise it must be
 * installed in `folder` already.
 */
export function checkMcpHelp(folder, runtime, spec, { fetch = false } = {}) {
  const args = [fetch ? '-y' : '--yes=false', spec, '--help'];
  const result = runIn(folder, runtime, 'npx', args, fetch ? 5 * 60_000 : 60_000);
  if (result.status !== 0) throw failure(`npx ${args.join(' ')} failed`, result);
  if (result.stdout !== '') throw new Error(`npx ${spec} --help wrote to stdout: ${result.stdout}`);
  if (!/^Usage:/m.test(result.stderr) || !result.stderr.includes('assistant-mcp')) {
    throw new Error(`npx ${spec} --help printed no usage on stderr:\n${result.stderr}`);
  }
  return 'usage on stderr, stdout empty';
}

/**
 * The same program as CommonJS (`require`) and as ESM (named `import`s of the CommonJS builds, which only link if
 * Node's cjs-module-lexer finds the names): the client reads the account, the contracts' schema checks it.
 */
const CONSUMER_BODY = `
const client = new AssistantClient({ baseUrl: process.argv[2], token: process.argv[3] });
client.getMe().then((me) => {
  const account = accountSchema.parse(me);
  process.stdout.write(JSON.stringify({ id: account.id, scopes: ALL_SCOPES.length }));
});
`;
const CONSUMERS = {
  'consumer.cjs': `const { AssistantClient } = require('@assistant/client');
const { accountSchema, ALL_SCOPES } = require('@assistant/contracts');
${CONSUMER_BODY}`,
  'consumer.mjs': `import { AssistantClient } from '@assistant/client';
import { accountSchema, ALL_SCOPES } from '@assistant/contracts';
${CONSUMER_BODY}`,
};

export function checkConsumer(folder, runtime, server, file) {
  writeFileSync(join(folder, file), CONSUMERS[file]);
  const result = runIn(folder, runtime, runtime.node, [file, server.url, server.token], 60_000);
  if (result.status !== 0) throw failure(`node ${file} failed`, result);
  const answer = JSON.parse(result.stdout);
  if (typeof answer.id !== 'string' || !(answer.scopes > 0))
    throw new Error(`node ${file} printed ${result.stdout}`);
  return `the client's getMe() checked by the contracts' accountSchema (${answer.id})`;
}
