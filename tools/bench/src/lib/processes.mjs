// Child processes, ports, temporary directories and clean-up, shared by http-bench.mjs and stream-bench.mjs.
//
// Why one module: both benches run servers as child processes (so that the load generator and the server do not
// share an event loop) and must leave nothing behind, whether they end normally, fail, or get Ctrl-C. Every
// child spawned and every directory made here is tracked, so that one clean-up path (stopAll, removeTempDirs and
// the last-resort 'exit' handler of installSignalHandlers) covers both benches.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

/** How long a server may take to become ready before the bench gives up on it. */
export const START_TIMEOUT_MS = 60_000;
/** How long a child has to exit after SIGTERM before it gets SIGKILL. */
export const STOP_TIMEOUT_MS = 10_000;

/** Running children (removed when they exit) and temporary directories not yet removed. */
const children = new Set();
const tempDirs = new Set();

export const sleep = (ms) => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));

// ------------------------------------------------------------------------------------ temporary directories

/** A fresh directory under the OS temporary directory, removed by removeTempDirs or on exit at the latest. */
export function makeTempDir(prefix) {
  const dir = mkdtempSync(join(os.tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir) {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

export function removeTempDirs() {
  for (const dir of [...tempDirs]) removeTempDir(dir);
}

// ---------------------------------------------------------------------------------------- child processes

/** A port that was free a moment ago (the OS picks it; tiny race before the child binds it). */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });
}

/**
 * Spawns `node ...nodeArgs <script> ...args` (under `wrapper`, a command and its arguments, when given: valgrind),
 * keeping its output lines (`[stdout] ...`, `[stderr] ...`; at most `maxOutput` of them) for diagnostics; `ipc`
 * adds a message channel (child.send / process.on('message')). Returns a handle: { name, child, output, exit (null
 * while running), exited (a promise of { code, signal }) }; functions added to `handle.onLine` see every line,
 * kept or not.
 */
export function spawnNode(
  name,
  script,
  args,
  env,
  { maxOutput = Infinity, ipc = false, nodeArgs = [], wrapper = [] } = {},
) {
  const stdio = ['ignore', 'pipe', 'pipe', ...(ipc ? ['ipc'] : [])];
  const [command, ...commandArgs] = [...wrapper, process.execPath, ...nodeArgs, script, ...args];
  const child = spawn(command, commandArgs, { env, stdio });
  const handle = { name, child, output: [], onLine: new Set(), exit: null };
  handle.exited = new Promise((resolveExit) => {
    child.once('exit', (code, signal) => {
      handle.exit = { code, signal };
      children.delete(handle);
      resolveExit(handle.exit);
    });
  });
  const keep = (stream) => (chunk) => {
    for (const line of chunk.toString().split('\n')) {
      if (line.trim() === '') continue;
      if (handle.output.length < maxOutput) handle.output.push(`[${stream}] ${line}`);
      for (const listener of handle.onLine) listener(line);
    }
  };
  child.stdout.on('data', keep('stdout'));
  child.stderr.on('data', keep('stderr'));
  children.add(handle);
  return handle;
}

/** SIGTERM, then SIGKILL if the process is still there after STOP_TIMEOUT_MS. */
export async function stopProcess(handle) {
  if (handle.exit) return handle.exit;
  handle.child.kill('SIGTERM');
  const timer = setTimeout(() => {
    handle.output.push(`[bench] did not stop within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM: killed`);
    handle.child.kill('SIGKILL');
  }, STOP_TIMEOUT_MS);
  const exit = await handle.exited;
  clearTimeout(timer);
  return exit;
}

/** Stops every child still running. */
export async function stopAll() {
  await Promise.all([...children].map((handle) => stopProcess(handle)));
}

export function describeExit({ code, signal }) {
  return signal ? `signal ${signal}` : `code ${code}`;
}

// ------------------------------------------------------------------------------------- waiting for readiness

/** GET on 127.0.0.1 without keep-alive; resolves the status code, rejects on connection errors. */
function getStatus(port, path) {
  return new Promise((resolveStatus, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path, agent: false }, (response) => {
      response.resume();
      response.once('end', () => resolveStatus(response.statusCode));
    });
    request.once('error', reject);
  });
}

/**
 * Polls GET /healthz every `intervalMs` until it answers 200; fails if the process exits first (with its output
 * in the error) or after START_TIMEOUT_MS. Used where the time to readiness is itself measured.
 */
export async function waitForHealthz(handle, port, intervalMs) {
  const deadline = performance.now() + START_TIMEOUT_MS;
  while (performance.now() < deadline) {
    if (handle.exit)
      throw new Error(`${handle.name} exited (${describeExit(handle.exit)}):\n${handle.output.join('\n')}`);
    const status = await getStatus(port, '/healthz').catch(() => null);
    if (status === 200) return;
    await sleep(intervalMs);
  }
  throw new Error(`${handle.name} did not answer 200 on /healthz within ${START_TIMEOUT_MS / 1000} s`);
}

/**
 * Resolves the first match of `pattern` in the process's output (e.g. the address a server prints once it
 * listens); fails if the process exits first or after START_TIMEOUT_MS. `what` names the awaited text in the
 * timeout error. On exit the error ends with "its last output:", for the caller to print handle.output.
 */
export function waitForOutput(handle, pattern, what) {
  return new Promise((resolveMatch, reject) => {
    const done = () => {
      clearTimeout(timer);
      handle.onLine.delete(onLine);
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`${handle.name} did not print ${what} within ${START_TIMEOUT_MS / 1000} s`));
    }, START_TIMEOUT_MS);
    const onLine = (line) => {
      const match = pattern.exec(line);
      if (!match) return;
      done();
      resolveMatch(match);
    };
    handle.onLine.add(onLine);
    handle.exited.then((exit) => {
      done();
      reject(new Error(`${handle.name} exited (${describeExit(exit)}); its last output:`));
    });
  });
}

// ------------------------------------------------------------------------------------------------ clean-up

/**
 * On SIGINT/SIGTERM: prints that it is stopping `what`, awaits `cleanup` and exits with 130. On any exit (an
 * exception, process.exit elsewhere), as a last resort: SIGKILL to the children still running and removal of
 * the temporary directories, the only clean-up that can run synchronously there.
 */
export function installSignalHandlers(what, cleanup) {
  const onSignal = (signal) => {
    console.error(`\n${signal}: stopping ${what} and cleaning up...`);
    cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('exit', () => {
    for (const handle of children) handle.child.kill('SIGKILL');
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  });
}
