// A full garbage collection in a server the bench spawned, so that a memory reading counts what is kept alive and
// not the garbage the last rounds left behind (RSS read without it varied from 7 to 25 KB per idle stream with
// the same code, depending on what ran before).
//
// Why the inspector: it needs nothing of the server (no --expose-gc, no preload, no route). The server is spawned
// with INSPECT_ON_SIGNAL, which only names the port the inspector would use; SIGUSR1 opens it on the first
// collection, after every timed figure, so it cannot slow one down.
import { WebSocket } from 'undici';
import { waitForOutput } from './processes.mjs';

/** Node options for a server the bench may later ask to collect: the inspector on a free loopback port, when asked. */
export const INSPECT_ON_SIGNAL = ['--inspect-port=127.0.0.1:0'];

/** The inspector's WebSocket address of each process already opened, by handle. */
const inspectorUrls = new WeakMap();

async function inspectorUrl(handle) {
  if (!inspectorUrls.has(handle)) {
    const printed = waitForOutput(handle, /Debugger listening on (ws:\/\/\S+)/, 'its inspector address');
    handle.child.kill('SIGUSR1');
    const [, url] = await printed;
    inspectorUrls.set(handle, url);
  }
  return inspectorUrls.get(handle);
}

/**
 * Runs a full, synchronous garbage collection in the process of `handle` (spawned with INSPECT_ON_SIGNAL) through
 * the DevTools protocol's HeapProfiler.collectGarbage, and resolves once it is done.
 */
export async function collectGarbage(handle) {
  const socket = new WebSocket(await inspectorUrl(handle));
  try {
    await new Promise((resolveOpen, reject) => {
      socket.addEventListener('open', resolveOpen, { once: true });
      socket.addEventListener(
        'error',
        () => reject(new Error(`${handle.name}: inspector connection failed`)),
        {
          once: true,
        },
      );
    });
    const reply = new Promise((resolveReply) =>
      socket.addEventListener('message', (message) => resolveReply(JSON.parse(message.data)), { once: true }),
    );
    socket.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' }));
    const { error } = await reply;
    if (error) throw new Error(`${handle.name}: HeapProfiler.collectGarbage failed: ${error.message}`);
  } finally {
    socket.close();
  }
}
