// Our self-hosted server as the benches run it: where its build is, the environment it gets, its token.
//
// Why one module: both benches must measure the same server configured the same way (no ASSISTANT_* setting
// of the caller leaking in, logs at warn, rate limits out of the way), so that their figures can be compared;
// each bench adds only the settings its scenario needs.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const DEFAULT_SERVER = join(REPO_ROOT, 'apps/self-host-server/dist/main.js');

/**
 * The environment of our server: the caller's, minus any ASSISTANT_* setting that could change the figures,
 * plus a data directory, a port on 127.0.0.1, warn-level logs, no core rate limit, and `extra`.
 */
export function ourServerEnv(dataDir, port, extra = {}) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('ASSISTANT_')),
  );
  return {
    ...env,
    ASSISTANT_DATA_DIR: dataDir,
    ASSISTANT_PORT: String(port),
    ASSISTANT_HOST: '127.0.0.1',
    ASSISTANT_LOG_LEVEL: 'warn',
    ASSISTANT_RATE_LIMIT_CORE: '100000000',
    ...extra,
  };
}

/** The bearer token our server wrote to credentials.json on its first start in `dataDir`. */
export function readToken(dataDir) {
  return JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')).token;
}
