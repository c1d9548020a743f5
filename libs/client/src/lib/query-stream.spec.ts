import type { ServerResponse } from 'node:http';
import type { QueryEvent } from '@assistant/contracts';
import {
  closedPort,
  sendProblem,
  sleep,
  startTestServer,
  TRANSPORTS,
  type Handler,
  type TestServer,
} from '../../test-support/http-test-server';
import { AssistantClient } from './client';
import { ApiRequestError, ConnectionError, ProtocolError, StreamInterruptedError } from './errors';

const TOKEN = 'ast_test_token';
const QUERY = 'qry_1';

/** The events of one whole query, 1..7, as the server sends them (SPEC §4). */
const EVENTS: QueryEvent[] = [
  {
    type: 'query.created',
    sequence_number: 1,
    query_id: QUERY,
    discussion_id: 'dsc_1',
    message_id: 'msg_2',
    model: 'builtin',
  },
  { type: 'output_text.delta', sequence_number: 2, delta: 'Your next ' },
  {
    type: 'tool_call.started',
    sequence_number: 3,
    call_id: 'call_1',
    tool: 'calendar_list_events',
    arguments: { days: 1 },
  },
  {
    type: 'tool_call.completed',
    sequence_number: 4,
    call_id: 'call_1',
    tool: 'calendar_list_events',
    status: 'ok',
    output: [],
  },
  { type: 'output_text.delta', sequence_number: 5, delta: 'meeting is café 🙂' },
  { type: 'memory.saved', sequence_number: 6, memory_id: 'mem_1', content: 'likes café' },
  {
    type: 'query.completed',
    sequence_number: 7,
    message_id: 'msg_2',
    text: 'Your next meeting is café 🙂',
    usage: { input_tokens: 10, output_tokens: 6 },
    finish_reason: 'stop',
  },
];

function frame(event: { type: string; sequence_number: number }): string {
  return `id: ${event.sequence_number}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

function openStream(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
}

/** Writes and waits until the bytes are handed to the socket. */
function write(res: ServerResponse, text: string | Buffer): Promise<void> {
  return new Promise((resolve, reject) => res.write(text, (error) => (error ? reject(error) : resolve())));
}

/** Cuts the TCP connection in the middle of the response, as a crashed proxy would. */
function cut(res: ServerResponse): void {
  res.socket?.destroy();
}

function resumeFrom(request: { headers: Record<string, string | string[] | undefined> }): number {
  return Number(request.headers['last-event-id'] ?? 0);
}

const fast = { initialDelayMs: 10, maxDelayMs: 50, maxAttempts: 3, idleTimeoutMs: 0 };

async function collect(iterable: AsyncIterable<QueryEvent>): Promise<QueryEvent[]> {
  const events: QueryEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

describe.each(TRANSPORTS)('streamQuery over %s', (_transport, fetch) => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function serve(
    handler: Handler,
    options: { validateResponses?: boolean } = {},
  ): Promise<AssistantClient> {
    server = await startTestServer(handler);
    return new AssistantClient({ baseUrl: server.url, token: TOKEN, reconnect: fast, fetch, ...options });
  }

  it('POSTs the query and yields typed events in order, through pings and chunks split anywhere', async () => {
    const client = await serve(async (request, res) => {
      if (request.method !== 'POST' || request.path !== '/api/v1/queries')
        return sendProblem(res, 404, 'not_found', 'no');
      openStream(res);
      const wire = Buffer.from(
        `: ping\n\n${EVENTS.map((event, index) => (index === 3 ? `: ping\n\n${frame(event)}` : frame(event))).join('')}`,
      );
      // Chunks of 1 to 22 bytes: boundaries fall inside field names, JSON, "\n\n" and UTF-8 characters.
      let offset = 0;
      let size = 1;
      while (offset < wire.length) {
        await write(res, wire.subarray(offset, offset + size));
        offset += size;
        size = (size * 7) % 23 || 1;
        await sleep(1);
      }
      res.end();
    });

    const events = await collect(client.streamQuery({ text: 'when is my next meeting?', model: 'builtin' }));

    expect(events).toEqual(EVENTS);
    expect(events.map((event) => event.sequence_number)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const first = events[0]!;
    if (first.type !== 'query.created') throw new Error('expected query.created first');
    expect(first.query_id).toBe(QUERY);
    const [post] = server!.requests;
    expect(post!.headers['accept']).toBe('text/event-stream');
    expect(post!.headers['authorization']).toBe(`Bearer ${TOKEN}`);
    expect(post!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(post!.body)).toEqual({ text: 'when is my next meeting?', model: 'builtin' });
    expect(server!.requests).toHaveLength(1);
  });

  it('splits bytes anywhere, even inside a UTF-8 character, and joins multi-line data', async () => {
    const wire = new TextEncoder().encode(
      [
        ': ping\r\n\r\n',
        frame(EVENTS[0]!),
        // The same JSON object spread over two data: lines (joined with "\n", still valid JSON).
        `id: 2\r\nevent: output_text.delta\r\ndata: {"type":"output_text.delta",\r\ndata: "sequence_number":2,"delta":"Your next "}\r\n\r\n`,
        ...EVENTS.slice(2).map(frame),
      ].join(''),
    );
    const fetch = async (): Promise<Response> => {
      let offset = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (offset >= wire.length) return controller.close();
          const size = 1 + (offset % 5);
          controller.enqueue(wire.slice(offset, offset + size));
          offset += size;
        },
      });
      return new Response(body, {
        status: 200,
        headers: { 'content-type': 'text/event-stream; charset=utf-8' },
      });
    };
    const client = new AssistantClient({
      baseUrl: 'http://127.0.0.1:1',
      token: TOKEN,
      fetch,
      reconnect: fast,
    });

    expect(await collect(client.streamQuery({ text: 'hi' }))).toEqual(EVENTS);
  });

  it('resumes with Last-Event-ID after the connection is cut, without yielding an event twice', async () => {
    const client = await serve(async (request, res) => {
      if (request.method === 'POST') {
        openStream(res);
        await write(res, frame(EVENTS[0]!) + frame(EVENTS[1]!));
        await sleep(20);
        return cut(res);
      }
      expect(request.path).toBe(`/api/v1/queries/${QUERY}/events`);
      openStream(res);
      // Replays from the id it was given, and once more the last one the client has (a sloppy server).
      const after = resumeFrom(request);
      for (const event of EVENTS.filter((e) => e.sequence_number >= after)) await write(res, frame(event));
      res.end();
    });

    const events = await collect(client.streamQuery({ text: 'when?' }));

    expect(events.map((event) => event.sequence_number)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(events).toEqual(EVENTS);
    const [post, resume] = server!.requests;
    expect(post!.method).toBe('POST');
    expect(resume!.method).toBe('GET');
    expect(resume!.headers['last-event-id']).toBe('2');
    expect(resume!.headers['accept']).toBe('text/event-stream');
    expect(resume!.headers['authorization']).toBe(`Bearer ${TOKEN}`);
    expect(server!.requests).toHaveLength(2);
  });

  it('resumes again and again when the stream ends early, each time from the last event seen', async () => {
    const client = await serve(async (request, res) => {
      openStream(res);
      const after = resumeFrom(request);
      // Each connection brings two new events, then ends cleanly without a terminal event.
      for (const event of EVENTS.filter((e) => e.sequence_number > after).slice(0, 2))
        await write(res, frame(event));
      res.end();
    });

    const events = await collect(client.streamQuery({ text: 'when?' }));

    expect(events).toEqual(EVENTS);
    expect(server!.requests.map((request) => request.headers['last-event-id'] ?? null)).toEqual([
      null,
      '2',
      '4',
      '6',
    ]);
  });

  it('asks again when the sequence skips a number', async () => {
    const client = await serve(async (request, res) => {
      openStream(res);
      if (request.method === 'POST') {
        await write(res, frame(EVENTS[0]!) + frame(EVENTS[1]!) + frame(EVENTS[3]!));
        return; // and hangs
      }
      for (const event of EVENTS.filter((e) => e.sequence_number > resumeFrom(request)))
        await write(res, frame(event));
      res.end();
    });

    const events = await collect(client.streamQuery({ text: 'when?' }));

    expect(events).toEqual(EVENTS);
    expect(server!.requests[1]!.headers['last-event-id']).toBe('2');
  });

  it('treats a silent connection as broken, but pings keep it alive', async () => {
    const client = await serve(async (request, res) => {
      openStream(res);
      if (request.method === 'POST') {
        await write(res, frame(EVENTS[0]!));
        for (let i = 0; i < 6; i++) {
          await sleep(40);
          await write(res, ': ping\n\n');
        }
        await write(res, frame(EVENTS[1]!));
        return; // then silence
      }
      for (const event of EVENTS.filter((e) => e.sequence_number > resumeFrom(request)))
        await write(res, frame(event));
      res.end();
    });
    const idle = new AssistantClient({
      baseUrl: client.baseUrl,
      token: TOKEN,
      reconnect: { ...fast, idleTimeoutMs: 150 },
    });

    const events = await collect(idle.streamQuery({ text: 'when?' }));

    expect(events).toEqual(EVENTS);
    expect(server!.requests).toHaveLength(2);
    expect(server!.requests[1]!.headers['last-event-id']).toBe('2');
  });

  it('stops right after the terminal event and closes the connection', async () => {
    let closed!: Promise<void>;
    const client = await serve(async (_request, res) => {
      closed = new Promise((resolve) => res.on('close', () => resolve()));
      openStream(res);
      for (const event of EVENTS) await write(res, frame(event));
      // A server that keeps going must not be listened to.
      await sleep(30);
      if (!res.destroyed) res.write(frame({ type: 'output_text.delta', sequence_number: 8 }));
    });

    const events = await collect(client.streamQuery({ text: 'when?' }));

    expect(events).toEqual(EVENTS);
    await closed;
    expect(server!.requests).toHaveLength(1);
  });

  it.each([
    [
      'query.failed',
      {
        type: 'query.failed',
        sequence_number: 3,
        error: {
          type: 'about:blank',
          title: 'Model unavailable',
          status: 503,
          code: 'model_unavailable',
          detail: 'the model is down',
          request_id: 'req_1',
        },
      },
    ],
    ['query.incomplete', { type: 'query.incomplete', sequence_number: 3, reason: 'max_steps' }],
  ])('ends on %s too', async (_name, terminal) => {
    const client = await serve(async (_request, res) => {
      openStream(res);
      await write(res, frame(EVENTS[0]!) + frame(EVENTS[1]!) + frame(terminal as QueryEvent));
      // and hangs
    });

    const events = await collect(client.streamQuery({ text: 'when?' }));

    expect(events.map((event) => event.type)).toEqual(['query.created', 'output_text.delta', terminal.type]);
    expect(events[2]).toEqual(terminal);
  });

  it('stops when its AbortSignal fires, rejecting with the abort reason and closing the connection', async () => {
    let closed!: Promise<void>;
    const client = await serve(async (_request, res) => {
      closed = new Promise((resolve) => res.on('close', () => resolve()));
      openStream(res);
      await write(res, frame(EVENTS[0]!) + frame(EVENTS[1]!));
      // and hangs
    });
    const controller = new AbortController();
    const seen: number[] = [];

    const run = (async () => {
      for await (const event of client.streamQuery({ text: 'when?' }, { signal: controller.signal })) {
        seen.push(event.sequence_number);
        if (event.sequence_number === 2) setTimeout(() => controller.abort(), 20);
      }
    })();

    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toEqual([1, 2]);
    await closed;
    expect(server!.requests).toHaveLength(1);
  });

  it('does not even connect when the signal has already fired', async () => {
    const client = await serve((_request, res) => res.end());
    const controller = new AbortController();
    controller.abort();

    await expect(
      collect(client.streamQuery({ text: 'x' }, { signal: controller.signal })),
    ).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(server!.requests).toHaveLength(0);
  });

  it('stops quietly when the consumer breaks out of the loop', async () => {
    let closed!: Promise<void>;
    const client = await serve(async (_request, res) => {
      closed = new Promise((resolve) => res.on('close', () => resolve()));
      openStream(res);
      await write(res, frame(EVENTS[0]!) + frame(EVENTS[1]!));
    });

    for await (const event of client.streamQuery({ text: 'when?' })) {
      if (event.sequence_number === 1) break;
    }

    await closed;
  });

  it('throws ApiRequestError with the problem when the POST is refused', async () => {
    const client = await serve((_request, res) =>
      sendProblem(
        res,
        422,
        'validation_failed',
        'text must not be empty',
        {},
        { errors: [{ field: 'text', message: 'text must not be empty' }] },
      ),
    );

    const error = await collect(client.streamQuery({ text: ' ' })).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ApiRequestError);
    const apiError = error as ApiRequestError;
    expect(apiError.status).toBe(422);
    expect(apiError.code).toBe('validation_failed');
    expect(apiError.detail).toBe('text must not be empty');
    expect(apiError.problem.errors).toEqual([{ field: 'text', message: 'text must not be empty' }]);
    expect(apiError.problemFromServer).toBe(true);
    expect(apiError.message).toContain('POST /api/v1/queries');
    expect(server!.requests).toHaveLength(1);
  });

  it('reports the scope a 403 asks for', async () => {
    const client = await serve((_request, res) =>
      sendProblem(res, 403, 'insufficient_scope', 'this call needs a token with the write:queries scope', {
        'www-authenticate': 'Bearer realm="assistant", error="insufficient_scope", scope="write:queries"',
      }),
    );

    const error = (await collect(client.streamQuery({ text: 'hi' })).catch(
      (e: unknown) => e,
    )) as ApiRequestError;

    expect(error).toBeInstanceOf(ApiRequestError);
    expect(error.code).toBe('insufficient_scope');
    expect(error.requiredScope).toBe('write:queries');
  });

  it('throws ConnectionError with the URL when nothing listens', async () => {
    const port = await closedPort();
    const client = new AssistantClient({
      baseUrl: `http://127.0.0.1:${port}`,
      token: TOKEN,
      reconnect: fast,
    });

    const error = (await collect(client.streamQuery({ text: 'hi' })).catch(
      (e: unknown) => e,
    )) as ConnectionError;

    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.url).toBe(`http://127.0.0.1:${port}/api/v1/queries`);
    expect(error.reason).toBe('ECONNREFUSED');
    expect(error.message).toContain(`http://127.0.0.1:${port}/api/v1/queries`);
    expect(error.message).not.toContain(TOKEN);
  });

  it('gives up after a bounded number of failed resumes, saying where it stopped', async () => {
    const client = await serve(async (request, res) => {
      if (request.method === 'POST') {
        openStream(res);
        await write(res, frame(EVENTS[0]!) + frame(EVENTS[1]!));
        await sleep(10);
        return cut(res);
      }
      sendProblem(res, 503, 'internal', 'restarting');
    });
    const seen: number[] = [];

    const error = await (async () => {
      for await (const event of client.streamQuery({ text: 'when?' })) seen.push(event.sequence_number);
    })().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect(error).toMatchObject({ queryId: QUERY, lastEventId: 2, attempts: 3 });
    expect((error as Error).cause).toBeInstanceOf(ApiRequestError);
    expect(seen).toEqual([1, 2]);
    expect(server!.requests.map((request) => request.method)).toEqual(['POST', 'GET', 'GET', 'GET']);
  });

  it('does not retry a resume the server refuses for good (404: the events expired)', async () => {
    const client = await serve(async (request, res) => {
      if (request.method === 'POST') {
        openStream(res);
        await write(res, frame(EVENTS[0]!));
        return res.end();
      }
      sendProblem(res, 404, 'not_found', 'no such query');
    });

    const error = await collect(client.streamQuery({ text: 'x' })).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ApiRequestError);
    expect((error as ApiRequestError).code).toBe('not_found');
    expect(server!.requests).toHaveLength(2);
  });

  it('cannot resume a stream that broke before query.created, and says so', async () => {
    const client = await serve(async (_request, res) => {
      openStream(res);
      await write(res, ': ping\n\n');
      res.end();
    });

    const error = await collect(client.streamQuery({ text: 'x' })).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect(error).toMatchObject({ queryId: undefined, lastEventId: 0 });
    expect(server!.requests).toHaveLength(1);
  });

  it('skips event types newer than this client, and rejects a malformed known one', async () => {
    const client = await serve(async (request, res) => {
      openStream(res);
      await write(res, frame(EVENTS[0]!));
      await write(res, frame({ type: 'reasoning.delta', sequence_number: 2 }));
      if (request.body.includes('bad')) {
        await write(res, frame({ type: 'output_text.delta', sequence_number: 3 }));
      } else {
        await write(res, frame({ ...EVENTS[6]!, sequence_number: 3 }));
      }
      res.end();
    });

    const good = await collect(client.streamQuery({ text: 'good' }));
    expect(good.map((event) => [event.sequence_number, event.type])).toEqual([
      [1, 'query.created'],
      [3, 'query.completed'],
    ]);

    const error = await collect(client.streamQuery({ text: 'bad' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toContain('event 3 (output_text.delta)');
  });

  it('without validation, still skips newer event types and yields a known one as the server sent it', async () => {
    const withoutDelta = { type: 'output_text.delta', sequence_number: 3, extra: true };
    const client = await serve(
      async (_request, res) => {
        openStream(res);
        await write(res, frame(EVENTS[0]!));
        await write(res, frame({ type: 'reasoning.delta', sequence_number: 2 }));
        await write(res, frame(withoutDelta));
        await write(res, frame({ ...EVENTS[6]!, sequence_number: 4 }));
        res.end();
      },
      { validateResponses: false },
    );

    const events = await collect(client.streamQuery({ text: 'lax' }));

    expect(events.map((event) => [event.sequence_number, event.type])).toEqual([
      [1, 'query.created'],
      [3, 'output_text.delta'],
      [4, 'query.completed'],
    ]);
    expect(events[1]).toEqual(withoutDelta);
  });

  it('refuses a 200 that is not an event stream', async () => {
    const client = await serve((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
    });

    await expect(collect(client.streamQuery({ text: 'x' }))).rejects.toBeInstanceOf(ProtocolError);
  });
});

describe('queryEvents', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('attaches to a query after a given event, with Last-Event-ID', async () => {
    server = await startTestServer(async (request, res) => {
      openStream(res);
      for (const event of EVENTS.filter((e) => e.sequence_number > resumeFrom(request)))
        await write(res, frame(event));
      res.end();
    });
    const client = new AssistantClient({ baseUrl: `${server.url}/api/v1/`, token: TOKEN, reconnect: fast });

    const events = await collect(client.queryEvents(QUERY, { after: 3 }));

    expect(events.map((event) => event.sequence_number)).toEqual([4, 5, 6, 7]);
    expect(server.requests[0]).toMatchObject({ method: 'GET', path: `/api/v1/queries/${QUERY}/events` });
    expect(server.requests[0]!.headers['last-event-id']).toBe('3');
  });

  it('replays everything without Last-Event-ID, and resumes after a cut', async () => {
    server = await startTestServer(async (request, res) => {
      openStream(res);
      const after = resumeFrom(request);
      for (const event of EVENTS.filter((e) => e.sequence_number > after)) {
        await write(res, frame(event));
        if (after === 0 && event.sequence_number === 4) return cut(res);
      }
      res.end();
    });
    const client = new AssistantClient({ baseUrl: server.url, token: TOKEN, reconnect: fast });

    const events = await collect(client.queryEvents(QUERY));

    expect(events).toEqual(EVENTS);
    expect(server.requests.map((request) => request.headers['last-event-id'] ?? null)).toEqual([null, '4']);
  });
});
