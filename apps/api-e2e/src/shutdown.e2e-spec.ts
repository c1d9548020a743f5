import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createParser } from 'eventsource-parser';
import { isTerminalEvent, queryEventSchema, type Query, type QueryEvent } from '@assistant/contracts';
import { ApiClient } from './support/http';
import { BUILT, startServer, type ServerProcess } from './support/processes';
import { readStream } from './support/sse';
import { startHostedDeployment } from './support/hosted-deployment';

/**
 * A graceful stop (SIGTERM) while 20 queries run (issue 11): the self-hosted server (`assistant serve`, built) on
 * SQLite, and the hosted API (built) on PostgreSQL and Redis; the built-in model answers one word every 200 ms
 * (≈25 s an answer), the grace is 3 s. The server refuses new queries (503) and reports not ready while it drains,
 * ends every query still running after the grace with `query.incomplete` (`interrupted`), closes each stream after
 * its terminal event and exits 0 within the grace. A server started again on the same data replays every query's
 * events, the terminal one included: none lost.
 */
const QUERIES = 20;
const GRACE_SECONDS = 3;
const SETTINGS = {
  ASSISTANT_BUILTIN_PACING_MS: '200',
  ASSISTANT_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
  ASSISTANT_MAX_CONCURRENT_QUERIES: String(QUERIES + 5),
};

/** A deployment under test: its first server, how to start another on the same data, and a token. */
interface Deployment {
  first: ServerProcess;
  token: string;
  startAgain(): Promise<ServerProcess>;
  stop(): Promise<void>;
}

async function selfHosted(): Promise<Deployment> {
  const dataDir = mkdtempSync(join(tmpdir(), 'assistant-e2e-shutdown-'));
  const servers: ServerProcess[] = [];
  const serve = async () => {
    const server = await startServer(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', '0'], SETTINGS);
    servers.push(server);
    return server;
  };
  const first = await serve();
  const token = (JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as { token: string })
    .token;
  return {
    first,
    token,
    startAgain: serve,
    stop: async () => {
      await Promise.all(servers.map((server) => server.stop()));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function hosted(): Promise<Deployment> {
  const deployment = await startHostedDeployment(1, SETTINGS);
  return {
    first: deployment.instances[0],
    token: deployment.ownerToken,
    startAgain: () => deployment.startInstance(),
    stop: () => deployment.stop(),
  };
}

interface LiveStream {
  events: QueryEvent[];
  /** Resolves once the query has its id and a first word. */
  answering: Promise<void>;
  /** Resolves when the server closes the stream. */
  ended: Promise<void>;
}

/** Opens a query's stream and keeps reading it in the background. */
async function openStream(url: string, token: string): Promise<LiveStream> {
  const response = await fetch(`${url}/api/v1/queries`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'what can you do?' }),
  });
  if (response.status !== 200) throw new Error(`the query was refused: ${await response.text()}`);
  const events: QueryEvent[] = [];
  let answered: () => void = () => undefined;
  const answering = new Promise<void>((resolve) => (answered = resolve));
  const parser = createParser({
    onEvent: (message) => {
      events.push(queryEventSchema.parse(JSON.parse(message.data)));
      if (events.length === 2) answered();
    },
  });
  const ended = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      parser.feed(decoder.decode(chunk, { stream: true }));
    }
  })();
  return { events, answering, ended };
}

/** Starts a request and sends all of it but its last line: it completes once `finish` is called. */
function heldRequest(url: string, head: string, body: string) {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let raw = '';
  socket.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write(`${head}content-length: ${Buffer.byteLength(body)}\r\n`);
  return {
    /** Sends the rest and resolves with the whole response (a JSON body), or what came before the socket closed. */
    finish: async () => {
      socket.write(`\r\n${body}`);
      const answered = () => /\r\n\r\n\{.*\}$/s.test(raw);
      for (let waited = 0; waited < 5_000 && !answered() && !socket.closed; waited += 20) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      socket.destroy();
      await closed;
      return raw;
    },
  };
}

describe.each([
  ['the self-hosted server on SQLite', selfHosted],
  ['the hosted API on PostgreSQL and Redis', hosted],
])('SIGTERM during 20 running queries, %s', (_name, deploy) => {
  let deployment: Deployment | undefined;
  afterAll(() => deployment?.stop());

  it('ends every query with a terminal event, exits 0 within the grace, and loses no event', async () => {
    deployment = await deploy();
    const { first: running, token } = deployment;
    const streams = await Promise.all(Array.from({ length: QUERIES }, () => openStream(running.url, token)));
    await Promise.all(streams.map((stream) => stream.answering));
    // A query whose request is under way when the signal arrives, and completes during the drain.
    const late = heldRequest(
      running.url,
      `POST /api/v1/queries HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\n`,
      JSON.stringify({ text: 'what can you do?' }),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));

    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      running.child.once('close', (code) => resolve({ code, at: Date.now() })),
    );
    const signalledAt = Date.now();
    running.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));

    const refused = await late.finish();
    expect(refused).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused).toMatch(/"code":"service_unavailable"/);
    const readiness = await fetch(`${running.url}/readyz`);
    expect(readiness.status).toBe(503);
    expect(((await readiness.json()) as { detail: string }).detail).toContain('shutdown');

    await Promise.all(streams.map((stream) => stream.ended));
    const { code, at } = await exited;
    expect(code).toBe(0);
    expect(at - signalledAt).toBeLessThan((GRACE_SECONDS + 3) * 1000);
    for (const { events } of streams) {
      expect(events.filter((event) => isTerminalEvent(event))).toEqual([
        { type: 'query.incomplete', reason: 'interrupted', sequence_number: events.length },
      ]);
    }

    const server = await deployment.startAgain();
    const api = new ApiClient(server.url, token);
    for (const { events } of streams) {
      const created = events[0];
      if (created.type !== 'query.created') throw new Error('the first event is not query.created');
      const status = await api.get<Query>(`/queries/${created.query_id}`);
      expect(status.body).toMatchObject({ status: 'incomplete', last_event_id: events.length });
      const replay = await readStream(`${server.url}/api/v1/queries/${created.query_id}/events?after=0`, {
        token,
      });
      expect(replay.events.map((e) => e.event)).toEqual(events);
    }
  }, 90_000);
});
