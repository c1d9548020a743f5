import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILT, startServer, type ServerProcess } from './support/processes';
import { readStream, type StreamResult } from './support/sse';

/**
 * A bounded soak (issue 11): 200 event streams open at once for 60 s against the self-hosted server (`assistant
 * serve`, built) on loopback, with the built-in model answering word by word. Each of 200 clients asks, reads its
 * stream to the end and asks again until the 60 s are over (the answers under way then are read to their end).
 *
 * Pass: no request fails and every stream ends `query.completed`, and afterwards the server's memory is back near
 * its baseline:
 * - Measured after a full garbage collection (a test-only preload, support/memory-probe.cjs, collects on SIGUSR2
 *   and prints `process.memoryUsage()`): the heap and the buffers outside it (`external`) then hold what is still
 *   referenced, not how far the collector happens to be behind, so the figure does not depend on timing.
 * - The baseline is taken after a warm-up round of 200 short queries (JIT, connection pools, SQLite caches, lazy
 *   imports of the model code), so one-off start-up growth does not count as a leak.
 * - What the server keeps on purpose is allowed for: a finished query stays in memory for 30 s after its end (then
 *   it is replayed from the database), so the heap may grow by the retained events, at most
 *   RETAINED_BYTES_PER_EVENT each (an event object with its JSON is a few hundred bytes); anything per connection
 *   or per stream that is not released (listeners, timers, subscribers, buffers) would grow far beyond that with
 *   200 streams and hundreds of queries.
 * - RSS is printed for the report but bounded only loosely (2×): the allocator keeps freed pages, so RSS
 *   returning exactly would be a flaky criterion. Active handles are printed too, not judged: the client's idle
 *   keep-alive connections and the retention timers of finished queries are there by design.
 */
const STREAMS = 200;
const SOAK_MS = 60_000;
/** The built-in model's pause between words: the answer to QUESTION (≈15 words) then streams for ≈6 s. */
const PACING_MS = 400;
const QUESTION = 'what time is it?';
/** What a retained event may cost on the heap; ≈600 B were measured (the event, its JSON, the log's arrays). */
const RETAINED_BYTES_PER_EVENT = 768;
const HEAP_SLACK_BYTES = 8 * 1024 * 1024;

interface MemorySample {
  rss: number;
  heapUsed: number;
  /** Memory of Buffers and other objects outside the JavaScript heap that JavaScript objects hold on to. */
  external: number;
  resources: Record<string, number>;
}

/** What the process still references after a full collection: its heap and the buffers it holds. */
const referenced = (sample: MemorySample) => sample.heapUsed + sample.external;

const MiB = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

describe('a soak of 200 concurrent streams for 60 s', () => {
  let dataDir: string;
  let server: ServerProcess;
  let token: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'assistant-e2e-soak-'));
    server = await startServer(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', '0'], {
      NODE_OPTIONS: `--expose-gc --require ${join(__dirname, 'support', 'memory-probe.cjs')}`,
      ASSISTANT_BUILTIN_PACING_MS: String(PACING_MS),
      ASSISTANT_MAX_CONCURRENT_QUERIES: String(STREAMS),
      ASSISTANT_RATE_LIMIT_QUERIES: '1000000',
      ASSISTANT_RATE_LIMIT_CORE: '1000000',
      // Pings on every stream many times during the soak: their timers must go with their streams.
      ASSISTANT_STREAM_PING_SECONDS: '5',
    });
    token = (JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as { token: string }).token;
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Asks the server's preload for its memory after a full garbage collection. */
  async function memory(): Promise<MemorySample> {
    const before = server.output().length;
    server.child.kill('SIGUSR2');
    for (let waited = 0; waited < 10_000; waited += 50) {
      const line = /memory-probe (\{.*\})\n/.exec(server.output().slice(before));
      if (line) return JSON.parse(line[1]) as MemorySample;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the server did not answer the memory probe');
  }

  const ask = (text: string): Promise<StreamResult> =>
    readStream(`${server.url}/api/v1/queries`, { token, body: { text } });

  function checkCompleted(result: StreamResult): number {
    if (result.status !== 200) throw new Error(`a query was refused: ${JSON.stringify(result.problem)}`);
    const last = result.events.at(-1)?.event;
    if (last?.type !== 'query.completed') throw new Error(`a stream ended with ${JSON.stringify(last)}`);
    return result.events.length;
  }

  it(
    'serves every stream to its end, and comes back to its memory and socket baseline',
    async () => {
      // Warm-up: 200 short answers at once.
      await Promise.all(Array.from({ length: STREAMS }, () => ask('thanks').then(checkCompleted)));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const baseline = await memory();

      const end = Date.now() + SOAK_MS;
      let queries = 0;
      let events = 0;
      let open = 0;
      let mostOpen = 0;
      const client = async (index: number) => {
        // Spread over the first second, as real clients would arrive.
        await new Promise((resolve) => setTimeout(resolve, (index * 1_000) / STREAMS));
        while (Date.now() < end) {
          open++;
          mostOpen = Math.max(mostOpen, open);
          let received: number;
          try {
            received = checkCompleted(await ask(QUESTION));
          } finally {
            open--;
          }
          queries++;
          events += received;
        }
      };
      await Promise.all(Array.from({ length: STREAMS }, (_, i) => client(i)));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const after = await memory();

      const allowance = events * RETAINED_BYTES_PER_EVENT + HEAP_SLACK_BYTES;
      process.stdout.write(
        `soak: ${queries} queries, ${events} events, up to ${mostOpen} streams open; heap + external after GC ` +
          `${MiB(referenced(baseline))} → ${MiB(referenced(after))} (allowed +${MiB(allowance)}); RSS ` +
          `${MiB(baseline.rss)} → ${MiB(after.rss)}; active handles ${JSON.stringify(baseline.resources)} → ${JSON.stringify(after.resources)}\n`,
      );
      expect(mostOpen).toBe(STREAMS);
      expect(queries).toBeGreaterThanOrEqual(STREAMS);
      expect(referenced(after) - referenced(baseline)).toBeLessThanOrEqual(allowance);
      expect(after.rss).toBeLessThanOrEqual(2 * baseline.rss);
    },
    SOAK_MS + 60_000,
  );
});
