/**
 * What a user does with the tarballs in an empty folder, on a given Node (see node-runtime.mjs): install them
 * (third-party dependencies from the registry, ours only from the tarballs), start `assistant serve` and call it,
 * ask `assistant-mcp` for its help, and import the client and the contracts from CommonJS and from ESM.
 * Each function throws an Error that says what went wrong.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const SERVE_START_TIMEOUT_MS = 90_000;

function runIn(folder, runtime, command, args, timeout = 120_000) {
  return spawnSync(command, args, { cwd: folder, env: runtime.env, encoding: 'utf8', timeout });
}

function failure(what, result) {
  const reason = result.error ? result.error.message : `exit ${result.status}`;
  return new Error(`${what} (${reason}):\n${result.stderr ?? ''}${result.stdout ?? ''}`.trimEnd());
}

/** `npm install <tarballs…>` into a new folder; native modules are built there for the runtime's Node. */
export function installTarballs(folder, runtime, tarballs) {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'pack-install-check', private: true }));
  const args = ['install', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs];
  const result = runIn(folder, runtime, 'npm', args, 15 * 60_000);
  if (result.status !== 0) throw failure('npm install of the tarballs failed', result);
  const installed = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')).dependencies ?? {};
  const notFromTarball = Object.entries(installed).filter(([, spec]) => !/\.tgz$/.test(spec));
  if (notFromTarball.length > 0)
    throw new Error(`not installed from a tarball: ${JSON.stringify(notFromTarball)}`);
  return tarballs.map((tarball) => basename(tarball));
}

/**
 * The SQLite driver the installed server takes on this Node (storage's sqliteDriver): from Node 22 on,
 * better-sqlite3 13 under its alias, installed and working (12.x aborts Node 24.19+ when a statement is collected);
 * on Node 20 the alias is left out and 12.x serves. Returns the version used.
 */
export function checkSqliteDriver(folder, runtime) {
  const major = Number(/v(\d+)/.exec(runtime.version)?.[1]);
  const name = major >= 22 ? 'better-sqlite3-v13' : 'better-sqlite3';
  const script = `const D = require('${name}'); new D(':memory:').prepare('SELECT 1 AS one').get();
console.log(require('${name}/package.json').version);`;
  const result = runIn(folder, runtime, runtime.node, ['-e', script]);
  if (result.status !== 0) throw failure(`${name} does not load on this Node`, result);
  const version = result.stdout.trim();
  if (major >= 22 && !version.startsWith('13.')) throw new Error(`${name} is ${version}, not 13.x`);
  return `${name} ${version}`;
}

/**
 * `npx assistant serve` on a free port with its own data directory; resolves with `{ url, token, stop }` once it
 * says where it runs. It runs in a process group of its own, so that stopping it stops npx's children too.
 */
export function startServe(folder, runtime, dataDir) {
  const child = spawn('npx', ['--yes=false', 'assistant', 'serve', '--port', '0', '--data-dir', dataDir], {
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
