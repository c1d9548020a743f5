// The model stub of the benchmarks, in a process of its own: the scripted OpenAI-compatible fixture of
// @assistant/test-services (tools/test-services), controlled by the bench over an IPC channel (lib/stub.mjs).
//
// Why its own process: the stub writes every token on a timer; in the bench's process its timers would share an
// event loop with the clients that read the streams, and a busy client would delay the tokens it then measures.
// The fixture's own CLI (openai-fixture-cli) runs one fixed step for the life of the process, while the perf
// report switches steps between its phases (timestamped tokens, a hanging model, a scripted tool call), hence
// this thin runner. The IPC messages are only exchanged between phases, never while a phase is measured.
//
// Besides what the fixture records, every request gets two times from process.hrtime.bigint() (CLOCK_MONOTONIC,
// the same clock as the bench's, on the same machine): `receivedAt`, when the fixture has read and parsed the
// request (its responder runs then), and `answeredAt`, the first setImmediate after that: steps without
// intervals (a tool call, a short text) are written in one go by then, so it is when the last byte of such an
// answer was handed to the socket.
//
//   node tools/bench/src/stub-process.mjs <tokens> <intervalMs>     (started by lib/stub.mjs with an IPC channel)
import { createRequire } from 'node:module';
import { FIXTURE_DIST } from './lib/server.mjs';

const [tokens, intervalMs] = process.argv.slice(2).map(Number);
const { startOpenAiFixture } = createRequire(import.meta.url)(FIXTURE_DIST);
const fixture = await startOpenAiFixture({ defaultStep: { tokens, intervalMs } });

/** Arrival and answer times per request index, as decimal strings (bigint does not cross IPC). */
const times = [];
const recordTimes = (request) => {
  const entry = { index: request.index, receivedAt: String(process.hrtime.bigint()), answeredAt: null };
  times[request.index] = entry;
  setImmediate(() => (entry.answeredAt = String(process.hrtime.bigint())));
  return undefined; // falls through to the queued steps, then the default step
};
fixture.respond(recordTimes);

const operations = {
  setDefault: (step) => void fixture.setDefault(step),
  script: (steps) => void fixture.script(...steps),
  requestCount: () => fixture.requests.length,
  waitForRequests: async (count, timeoutMs) => (await fixture.waitForRequests(count, timeoutMs)).length,
  /** Times of the requests from index `from` on, with the message text of each (to tell the requests apart). */
  times: (from) =>
    times.slice(from).map((entry) => ({
      ...entry,
      messages: fixture.requests[entry.index].messages.length,
      lastRole: fixture.requests[entry.index].messages.at(-1)?.role,
    })),
};

process.on('message', async ({ id, op, args }) => {
  try {
    process.send({ id, ok: true, value: await operations[op](...args) });
  } catch (error) {
    process.send({ id, ok: false, error: error instanceof Error ? error.message : String(error) });
  }
});

const stop = () => fixture.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
process.once('disconnect', stop); // the bench went away without stopping us
process.stdout.write(`stub listening on ${fixture.url}\n`);
