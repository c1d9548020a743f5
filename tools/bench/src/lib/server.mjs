// Our self-hosted server as the benches run it: where its build is, the environment it gets, its token.
//
// Why one module: both benches must measure the same server configured the same way (no ASSISTANT_* setting
// of the caller leaking in, logs at warn, rate limits out of the way), so that their figures can be compared;
// each bench adds only the settings its scenario needs.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { INSPECT_ON_SIGNAL } from './collect-garbage.mjs';
import { freePort, makeTempDir, spawnNode, waitForOutput } from './processes.mjs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
/** The built OpenAI-compatible fixture of @assistant/test-services: the model stub of every bench. */
export const FIXTURE_DIST = join(REPO_ROOT, 'tools/test-services/dist/index.js');
/** The built storage library, whose sqliteDriver() picks the better-sqlite3 our server runs on this Node. */
const STORAGE_SQLITE_DRIVER = join(REPO_ROOT, 'libs/storage/dist/lib/sqlite-driver.js');
/** The `assistant` command line (serve, chat, …): bin/run.js loads the CLI's bundle (apps/cli/dist). */
export const CLI = join(REPO_ROOT, 'apps/cli/bin/run.js');
/**
 * Our server as users run it: `assistant serve`, from the CLI's bundle. `--server` may name the bin/run.js of another
 * checkout's CLI (an A/B), or a script that serves by itself, such as apps/self-host-server/dist/main.js (the same
 * libraries, not bundled).
 */
export const DEFAULT_SERVER = CLI;

/** Whether `entry` is an `assistant` command line: the `assistant` bin of the package.json above its folder. */
function isAssistantCommand(entry) {
  const packageDir = dirname(dirname(resolve(entry)));
  try {
    const { bin } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
    return typeof bin?.assistant === 'string' && resolve(packageDir, bin.assistant) === resolve(entry);
  } catch {
    return false;
  }
}

/** The arguments that make `entry` serve: `serve` for an `assistant` command line, none for a server script. */
export function serverArgs(entry) {
  return isAssistantCommand(entry) ? ['serve'] : [];
}

/** The `assistant` command line that goes with our server `entry`: its own, or this checkout's. */
export function cliOf(entry) {
  return isAssistantCommand(entry) ? resolve(entry) : CLI;
}

/**
 * A line our server prints when it starts or stops (as processes.mjs keeps it: `[stream] line`): its address, the
 * indented details `assistant serve` prints under it, and the stop.
 */
export function isServerStartOrStopLine(line) {
  return /\] (Assistant is (listening on|running at) | {2}\S|Press Ctrl\+C to stop|assistant: SIGTERM received, stopping)/.test(
    line,
  );
}

/**
 * The SQLite driver module our server opens its file with on this Node (better-sqlite3 12 or 13, see
 * docs/decisions/0006-sqlite-driver-alias.md), for a floor or a bench that reads the same file the same way.
 */
export const sqliteDriver = () => createRequire(import.meta.url)(STORAGE_SQLITE_DRIVER).sqliteDriver();

/** The core rate limit our server runs with in the benches: high enough never to answer 429 (floors count too). */
export const BENCH_CORE_RATE_LIMIT = 100_000_000;

/** This process's environment minus every ASSISTANT_* setting (the caller's own must not change the figures). */
export function callerEnvWithoutSettings() {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('ASSISTANT_')));
}

/**
 * The environment of our server: the caller's, minus any ASSISTANT_* setting that could change the figures,
 * plus a data directory, a port on 127.0.0.1, warn-level logs, no core rate limit, and `extra`.
 */
export function ourServerEnv(dataDir, port, extra = {}) {
  return {
    ...callerEnvWithoutSettings(),
    ASSISTANT_DATA_DIR: dataDir,
    ASSISTANT_PORT: String(port),
    ASSISTANT_HOST: '127.0.0.1',
    ASSISTANT_LOG_LEVEL: 'warn',
    ASSISTANT_RATE_LIMIT_CORE: String(BENCH_CORE_RATE_LIMIT),
    ...extra,
  };
}

/**
 * What our server needs to stream from the model stub at `stubUrl` without other limits getting in the way: the
 * stub as its OpenAI-compatible model, no query rate limit, room for every concurrent query of the benches.
 */
export function streamingEnv(stubUrl) {
  return {
    ASSISTANT_MODEL: 'openai-compatible:fixture',
    ASSISTANT_MODEL_BASE_URL: stubUrl,
    ASSISTANT_RATE_LIMIT_QUERIES: '100000000',
    ASSISTANT_MAX_CONCURRENT_QUERIES: '1000',
  };
}

/**
 * Starts our self-hosted server (`entry`) on a free port with `extra` settings, on `dataDir` (default: a fresh
 * temporary data directory), ready for collectGarbage (and with `nodeArgs`: a profiler's), and resolves once it
 * prints its address: { handle, baseUrl, token, pid, dataDir }.
 */
export async function startOurServer(
  entry,
  extra = {},
  { dataDir = makeTempDir('assistant-bench-data-'), nodeArgs = [] } = {},
) {
  const port = await freePort();
  const handle = spawnNode('our server', entry, serverArgs(entry), ourServerEnv(dataDir, port, extra), {
    maxOutput: 500,
    nodeArgs: [...INSPECT_ON_SIGNAL, ...nodeArgs],
  });
  const baseUrl = await listeningAddress(handle);
  return { handle, baseUrl, token: readToken(dataDir), pid: handle.child.pid, dataDir };
}

/**
 * The base URL a server of ours prints once it listens ("… is running at http://…", or "… is listening on …" from a
 * server script), without a final slash.
 */
export async function listeningAddress(handle) {
  const address = /is (?:running at|listening on) (http:\/\/\S+)/;
  const [, found] = await waitForOutput(handle, address, 'its address').catch((error) => {
    throw new Error(`${error.message}\n${handle.output.slice(-20).join('\n')}`);
  });
  return found.replace(/\/+$/, '');
}

/** The bearer token our server wrote to credentials.json on its first start in `dataDir`. */
export function readToken(dataDir) {
  return JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')).token;
}
