/**
 * A reader of a query's event stream that reads slowly, or stops, against the real streaming path: `QueryStreamer`
 * and `SseStream` on a Fastify server on loopback, fed by a `MemoryQueryEventLog`, read over TCP sockets.
 *
 * A stream stops taking events from the log once its reader is `STREAM_BACKLOG_BYTES` behind, and takes them again,
 * after the last one it sent, when the reader has caught up: what a reader has not read waits in the log, not in
 * this process's memory. The log hands an event to every reader at once and waits for none. So a stalled reader
 * holds back neither the log nor another reader, loses nothing, is let go when it leaves, and costs at most its
 * backlog (the last test measures it; it held the whole query's frames before).
 */
import { connect, type Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import type { QueryEvent, QueryEventBody } from '@assistant/contracts';
import type { ServerConfig } from '@assistant/server-kit';
import { MemoryQueryEventLog } from './query-event-log';
import { QueryStreamer } from './query-streamer';
import { frameOf, STREAM_BACKLOG_BYTES } from './sse-stream';

const QUERY = 'qry_back_pressure';
/**
 * Deltas of 64 KiB, 320 of them: 20 MiB of frames, well over what the socket buffers of a loopback connection
 * take in while its receiver reads nothing (Linux grows a receive buffer only as its reader reads).
 */
const DELTA = 'x'.repeat(64 * 1024);
const DELTAS = 320;

let log: MemoryQueryEventLog;
let server: FastifyInstance;
let port: number;
/** The server's side of each stream, in the order they were opened. */
let responses: ServerResponse[];
let sockets: Socket[];

beforeEach(async () => {
  log = new MemoryQueryEventLog();
  await log.open({
    id: QUERY,
    userId: 'usr_1',
    discussionId: 'dsc_1',
    messageId: 'msg_1',
    model: 'builtin',
    owner: 'tok_1',
    createdAt: new Date(),
  });
  log.append(QUERY, {
    type: 'query.created',
    query_id: QUERY,
    discussion_id: 'dsc_1',
    message_id: 'msg_1',
    model: 'builtin',
  });
  const streamer = new QueryStreamer(log, { queries: { pingIntervalMs: 60_000 } } as ServerConfig);
  responses = [];
  sockets = [];
  server = Fastify();
  server.get('/events', (request, reply) => {
    responses.push(reply.raw);
    streamer.stream(QUERY, 0, reply);
  });
  await server.listen({ port: 0, host: '127.0.0.1' });
  port = (server.server.address() as { port: number }).port;
});
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  await server.close();
  log.close();
});

/** A reader over a raw socket: what it has received so far, and a way to stop and start reading. */
interface Reader {
  socket: Socket;
  stalled: boolean;
  /** Starts a stalled reader reading: everything it had left, then on. */
  resume(): void;
  received(): string;
  /** Resolves once the terminal event has arrived. */
  ended(): Promise<void>;
}

/** Opens `GET /events`; a reader that is `stalled` reads nothing until it resumes. */
async function openReader(stalled = false): Promise<Reader> {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  const chunks: Buffer[] = [];
  socket.write(`GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`);
  // Reading in paused mode: a stalled reader takes nothing, and the socket stops reading from the kernel at
  // its high-water mark; the kernel's buffers fill, and then the server's writes wait in its own memory.
  const read = () => {
    if (reader.stalled) return;
    for (let chunk: Buffer | null; (chunk = socket.read() as Buffer | null) !== null;) chunks.push(chunk);
  };
  const reader: Reader = {
    socket,
    stalled,
    resume: () => {
      reader.stalled = false;
      read();
    },
    received: () => Buffer.concat(chunks).toString('utf8'),
    ended: () => until(() => reader.received().includes('event: query.completed\n')),
  };
  socket.on('readable', read);
  await until(() => responses.length === sockets.length);
  return reader;
}

/** The events of an event-stream body, in order (pings and the chunked framing left out). */
function eventsIn(body: string): QueryEvent[] {
  return [...body.matchAll(/^data: (.*)$/gm)].map((match) => JSON.parse(match[1]) as QueryEvent);
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function appendDeltas(count = DELTAS): void {
  for (let i = 0; i < count; i += 1) log.append(QUERY, { type: 'output_text.delta', delta: DELTA });
}

const COMPLETED: QueryEventBody = {
  type: 'query.completed',
  message_id: 'msg_1',
  text: '…',
  usage: { input_tokens: 1, output_tokens: DELTAS },
  finish_reason: 'stop',
};

const sequenceOf = (events: QueryEvent[]) => events.map((event) => event.sequence_number);
const oneToN = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

it('a stalled reader holds back neither the log nor another reader of the same query', async () => {
  const stalled = await openReader(true);
  const reading = await openReader();

  appendDeltas();
  await log.end(QUERY, COMPLETED);
  await reading.ended();

  // Every event reached the reader that reads, while the other one still holds most of them unread.
  expect(sequenceOf(eventsIn(reading.received()))).toEqual(oneToN(DELTAS + 2));
  expect(eventsIn(stalled.received())).toEqual([]);
  expect(responses[0].writableLength).toBeGreaterThan(0);
});

it('a reader that falls behind loses nothing: its frames wait for it, and arrive whole and in order', async () => {
  const stalled = await openReader(true);

  appendDeltas();
  // write() said "wait" (false) long before this, and the stream wrote on: the rest waits in the response.
  expect(responses[0].writableNeedDrain).toBe(true);
  expect(responses[0].writableLength).toBeGreaterThan(0);
  await log.end(QUERY, COMPLETED);

  stalled.resume();
  await stalled.ended();

  const events = eventsIn(stalled.received());
  expect(sequenceOf(events)).toEqual(oneToN(DELTAS + 2));
  expect(
    events.slice(1, -1).every((event) => event.type === 'output_text.delta' && event.delta === DELTA),
  ).toBe(true);
  expect(events.at(-1)?.type).toBe('query.completed');
});

it('a stalled reader that goes away is let go: nothing more is written for it', async () => {
  const stalled = await openReader(true);
  appendDeltas(DELTAS / 2);
  expect(responses[0].writableNeedDrain).toBe(true);
  const write = jest.spyOn(responses[0], 'write');

  stalled.socket.destroy();
  await until(() => responses[0].destroyed);
  appendDeltas(DELTAS / 2);
  await log.end(QUERY, COMPLETED);

  expect(write).not.toHaveBeenCalled();
  // Its buffered frames went with it.
  expect(responses[0].writableLength).toBe(0);
});

it('holds at most its backlog for a stalled reader, whatever the length of the query', async () => {
  await openReader(true);
  const before = responses[0].writableLength;

  let frames = 0;
  for (let i = 0; i < 2 * DELTAS; i += 1) {
    const event = log.append(QUERY, { type: 'output_text.delta', delta: DELTA });
    // The frame, in a chunk of HTTP/1.1's chunked encoding (its size in hex and two line ends).
    frames += Buffer.byteLength(frameOf(event)) + 12;
  }

  const held = responses[0].writableLength - before;
  // 40 MiB of frames: the socket buffers take their few MiB, the log keeps the rest, and this process holds at
  // most the backlog and the frame that crossed it.
  expect(frames).toBeGreaterThan(10 * STREAM_BACKLOG_BYTES);
  expect(held).toBeLessThanOrEqual(STREAM_BACKLOG_BYTES + Buffer.byteLength(DELTA) + 1024);
});
