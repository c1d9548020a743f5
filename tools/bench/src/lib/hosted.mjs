// Our hosted API as the perf report runs it (--hosted): PostgreSQL in a throwaway schema, migrated by the ops
// command, one account, Redis with a key prefix of its own, as apps/api-e2e/src/support/targets.ts starts it.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connect, throwawaySchemaUrl } from './postgres.mjs';
import { processCpuSeconds } from './measure.mjs';
import { freePort, spawnNode } from './processes.mjs';
import { listeningAddress, ourServerEnv, REPO_ROOT } from './server.mjs';

const HOSTED_MAIN = join(REPO_ROOT, 'apps/hosted-api/dist/main.js');
const HOSTED_OPS = join(REPO_ROOT, 'apps/hosted-api/dist/ops.js');
/** Database 15, as the test suites use: a benchmark leaves nothing in database 0. */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379/15';
/** Any 32-byte key: the bench stores no connection secret. */
const SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');

/**
 * Migrates a fresh schema of `databaseUrl`, creates an account and starts the hosted API with `extra` settings.
 * Resolves { handle, baseUrl, token, pid, databaseUrl (with its ?schema=), applicationName (its PostgreSQL
 * connections' application_name) }.
 */
export async function startHostedServer(databaseUrl, redisUrl, extra = {}) {
  const { url } = throwawaySchemaUrl(databaseUrl);
  const port = await freePort();
  const env = {
    ...ourServerEnv(undefined, port, extra),
    ASSISTANT_DATABASE_URL: url,
    ASSISTANT_REDIS_URL: redisUrl,
    ASSISTANT_REDIS_KEY_PREFIX: `bench-${randomBytes(4).toString('hex')}:`,
    ASSISTANT_SECRETS_KEY: SECRETS_KEY,
    // node-postgres names its connections by PGAPPNAME: how the bench finds the backends that serve this process.
    PGAPPNAME: `bench-hosted-${randomBytes(4).toString('hex')}`,
  };
  delete env.ASSISTANT_DATA_DIR; // the hosted API keeps everything in PostgreSQL and Redis
  const ops = (...args) => promisify(execFile)(process.execPath, [HOSTED_OPS, ...args], { env });
  await ops('migrate');
  const { stdout } = await ops('create-account', '--email', 'bench@example.com');
  const handle = spawnNode('our hosted API', HOSTED_MAIN, [], env, { maxOutput: 500 });
  const baseUrl = await listeningAddress(handle);
  return {
    handle,
    baseUrl,
    token: JSON.parse(stdout).token,
    pid: handle.child.pid,
    databaseUrl: url,
    applicationName: env.PGAPPNAME,
  };
}

/**
 * The CPU of the PostgreSQL backends serving the hosted API `hosted` (found by its application name; PostgreSQL on
 * the same machine): resolves { start(): Promise<a function resolving the seconds they used since>, seen (the
 * backends seen so far), close() }. A backend that appeared meanwhile counts whole; one gone meanwhile is lost (the
 * API's pool keeps its connections while it is busy).
 */
export async function watchBackendsCpu(hosted) {
  const client = await connect(hosted.databaseUrl);
  const seen = new Set();
  const pids = async () => {
    const { rows } = await client.query('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [
      hosted.applicationName,
    ]);
    for (const { pid } of rows) seen.add(pid);
    return rows.map((r) => r.pid);
  };
  return {
    seen,
    /** Starts a measurement; resolves a function that resolves the backends' CPU seconds since. */
    start: async () => {
      const before = new Map((await pids()).map((pid) => [pid, processCpuSeconds(pid) ?? 0]));
      return async () => {
        let seconds = 0;
        for (const pid of new Set([...before.keys(), ...(await pids())])) {
          const now = processCpuSeconds(pid);
          if (now !== null) seconds += now - (before.get(pid) ?? 0);
        }
        return seconds;
      };
    },
    close: () => client.end(),
  };
}
