/**
 * A Verdaccio registry of its own for one check: on a free loopback port, with its storage, users and log in a
 * given folder. Our scope (`@assistant/*`) is served only from what is published to it; every other package comes
 * through from `uplink` (the registry npm uses here), so that installing from it works as from the public one.
 * It runs in a process group of its own, stopped by `stop()` or, at the latest, when this process exits.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

const START_TIMEOUT_MS = 60_000;

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function config(folder, uplink) {
  return `storage: ${join(folder, 'storage')}
auth:
  htpasswd:
    file: ${join(folder, 'htpasswd')}
uplinks:
  upstream:
    url: ${uplink}
packages:
  '@assistant/*':
    access: $all
    publish: $authenticated
    unpublish: $authenticated
  '**':
    access: $all
    publish: $authenticated
    proxy: upstream
web:
  enable: false
log: { type: file, path: ${join(folder, 'verdaccio.log')}, level: warn }
`;
}

/**
 * Starts Verdaccio (`bin`: its bin/verdaccio, run on this Node) and resolves with `{ url, log, stop }` once it
 * answers `/-/ping`. `url` ends with a slash, as npm's registry settings do.
 */
export async function startVerdaccio(bin, folder, uplink) {
  const port = await freePort();
  const configFile = join(folder, 'config.yaml');
  writeFileSync(configFile, config(folder, uplink));
  const url = `http://127.0.0.1:${port}/`;
  const child = spawn(process.execPath, [bin, '--config', configFile, '--listen', `127.0.0.1:${port}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((done) => child.on('close', done));
  let running = true;
  exited.then(() => (running = false));
  const kill = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const onExit = () => kill('SIGKILL');
  process.on('exit', onExit);
  const stop = async () => {
    process.off('exit', onExit);
    if (!running) return;
    kill('SIGTERM');
    const timer = setTimeout(() => kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  const log = () => {
    let file = '';
    try {
      file = readFileSync(join(folder, 'verdaccio.log'), 'utf8');
    } catch {
      // not written yet
    }
    return `${output}${file}`.trim();
  };

  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!running) throw new Error(`verdaccio exited before it answered:\n${log()}`);
    try {
      if ((await fetch(`${url}-/ping`)).ok) return { url, log, stop };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await stop();
  throw new Error(`verdaccio did not answer within ${START_TIMEOUT_MS / 1000} s:\n${log()}`);
}

/** Adds a user to the registry (Verdaccio's htpasswd lets anyone sign up) and returns its token, for publishing. */
export async function addUser(registryUrl, name) {
  const response = await fetch(`${registryUrl}-/user/org.couchdb.user:${name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, password: `${name}-${process.pid}-${Date.now()}` }),
  });
  const body = await response.text();
  if (!response.ok) throw new Error(`adding user ${name} answered ${response.status}: ${body}`);
  const { token } = JSON.parse(body);
  if (typeof token !== 'string') throw new Error(`adding user ${name} gave no token: ${body}`);
  return token;
}
