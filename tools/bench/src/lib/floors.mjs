// Where the floor servers are: one script per floor under src/floors/, each its own process.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FLOORS_DIR = join(dirname(fileURLToPath(import.meta.url)), '../floors');

/** The path of floor script `name` (e.g. "relay-server.mjs"). */
export const floorScript = (name) => join(FLOORS_DIR, name);

/** The bare Fastify process answering canned routes (http-bench's baseline, and the start-up floor). */
export const BARE_SERVER = join(FLOORS_DIR, '../bare-server.mjs');
