// Where the floor servers are: one script per floor under src/floors/, each its own process.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, spawnNode, waitForOutput } from './processes.mjs';

const FLOORS_DIR = join(dirname(fileURLToPath(import.meta.url)), '../floors');

/** The path of floor script `name` (e.g. "relay-server.mjs"). */
export const floorScript = (name) => join(FLOORS_DIR, name);

/** The bare Fastify process answering canned routes (http-bench's baseline, and the start-up floor). */
export const BARE_SERVER = join(FLOORS_DIR, '../bare-server.mjs');

/** Starts the bare relay floor (floors/relay-server.mjs) in its own process, relaying the stub at `stubUrl`. */
export async function startRelayFloor(stubUrl, { nodeArgs = [] } = {}) {
  const port = await freePort();
  const handle = spawnNode(
    'bare relay',
    floorScript('relay-server.mjs'),
    [String(port), stubUrl],
    process.env,
    { nodeArgs },
  );
  await waitForOutput(handle, /relay listening on/, 'its address');
  return { handle, url: `http://127.0.0.1:${port}`, pid: handle.child.pid };
}

/**
 * Starts the essential-work stream floor (floors/essential-stream-floor.mjs) in its own process: it relays the
 * stub at `stubUrl` for the tokens of our server's SQLite file `ourFile`, storing its own rows under `dir`.
 */
export async function startEssentialStreamFloor(stubUrl, ourFile, dir, { nodeArgs = [] } = {}) {
  const port = await freePort();
  const handle = spawnNode(
    'essential stream floor',
    floorScript('essential-stream-floor.mjs'),
    [String(port), stubUrl, ourFile, dir],
    process.env,
    { nodeArgs },
  );
  await waitForOutput(handle, /essential floor listening on/, 'its address');
  return { handle, url: `http://127.0.0.1:${port}`, pid: handle.child.pid };
}
