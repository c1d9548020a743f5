// The model stub as the benches see it: the fixture running in its own process (../stub-process.mjs), with the
// fixture's controls (default step, queued steps, requests) as async calls over IPC.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnNode, stopProcess, waitForOutput } from './processes.mjs';
import { FIXTURE_DIST } from './server.mjs';

const STUB_PROCESS = join(dirname(fileURLToPath(import.meta.url)), '../stub-process.mjs');

/**
 * Starts the stub answering every request with `tokens` timestamped deltas `intervalMs` apart (until told
 * otherwise). Resolves { url (with /v1), pid, setDefault(step), script(...steps), requestCount(),
 * waitForRequests(count, timeoutMs), times(from): [{ index, receivedAt, answeredAt (bigint) }], stop() }.
 */
export async function startStub({ tokens, intervalMs }) {
  if (!existsSync(FIXTURE_DIST))
    throw new Error(`the fixture is not built (${FIXTURE_DIST}): run npx nx run-many -t build`);
  const handle = spawnNode('model stub', STUB_PROCESS, [String(tokens), String(intervalMs)], process.env, {
    maxOutput: 200,
    ipc: true,
  });
  const [, url] = await waitForOutput(handle, /stub listening on (http:\/\/\S+)/, 'its address');
  const pending = new Map();
  let nextId = 0;
  handle.child.on('message', ({ id, ok, value, error }) => {
    const call = pending.get(id);
    pending.delete(id);
    if (ok) call.resolve(value);
    else call.reject(new Error(`model stub: ${error}`));
  });
  const call = (op, ...args) =>
    new Promise((resolve, reject) => {
      if (handle.exit) return reject(new Error(`model stub exited:\n${handle.output.join('\n')}`));
      const id = nextId++;
      pending.set(id, { resolve, reject });
      handle.child.send({ id, op, args });
    });
  return {
    url,
    pid: handle.child.pid,
    setDefault: (step) => call('setDefault', step),
    script: (...steps) => call('script', steps),
    requestCount: () => call('requestCount'),
    waitForRequests: (count, timeoutMs = 10_000) => call('waitForRequests', count, timeoutMs),
    times: async (from = 0) =>
      (await call('times', from)).map((t) => ({
        ...t,
        receivedAt: BigInt(t.receivedAt),
        answeredAt: t.answeredAt === null ? null : BigInt(t.answeredAt),
      })),
    stop: () => stopProcess(handle),
  };
}
