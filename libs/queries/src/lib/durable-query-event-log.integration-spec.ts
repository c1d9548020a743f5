import type { QueryEvent } from '@assistant/contracts';
import { newId, type Storage } from '@assistant/storage';
import { openTestStorage } from '@assistant/storage/testing';
import { DurableQueryEventLog } from './durable-query-event-log';
import { MemoryQueryEventLog } from './query-event-log';
import { type QueryEventLog, type QueryRecord } from '@assistant/server-kit';
import { frameOf } from './sse-stream';

const FLUSH_MS = 40;

/**
 * One live log that two processes share, as Redis is shared: it stops vouching for a query (`get` is undefined)
 * once the test says its runner is gone, as RedisQueryEventLog does when the runner's lease lapsed.
 */
class SharedLiveLog extends MemoryQueryEventLog {
  readonly lost = new Set<string>();

  override async get(queryId: string): Promise<QueryRecord | undefined> {
    return this.lost.has(queryId) ? undefined : super.get(queryId);
  }
}

describe('DurableQueryEventLog on SQLite', () => {
  let storage: Storage;
  let dispose: () => Promise<void>;
  let userId: string;
  let discussionId: string;
  const errors: unknown[] = [];
  const logs: DurableQueryEventLog[] = [];

  beforeAll(async () => {
    ({ storage, dispose } = await openTestStorage('sqlite'));
    userId = (await storage.users.create({ email: 'durable@example.com', displayName: 'D' })).id;
    discussionId = (await storage.discussions.create(userId, 'Durable')).id;
  });
  afterEach(() => {
    for (const log of logs.splice(0)) log.close();
    expect(errors.splice(0)).toEqual([]);
  });
  afterAll(async () => dispose());

  /** A process's log: its own memory (or a live log shared with other processes, as Redis is), the shared database. */
  function processLog(
    runnerId = 'runner_a',
    pollMs = 1_000,
    live: QueryEventLog = new MemoryQueryEventLog(undefined, runnerId),
  ) {
    const log = new DurableQueryEventLog(live, storage.queries, {
      flushDelayMs: FLUSH_MS,
      pollMs,
      superviseMs: 20,
      onError: (error) => errors.push(error),
    });
    logs.push(log);
    return log;
  }

  async function openQuery(log: DurableQueryEventLog, storeAfter?: PromiseLike<unknown>) {
    const id = newId('query');
    await log.open(
      {
        id,
        userId,
        discussionId,
        messageId: newId('message'),
        model: 'builtin',
        owner: 'token:tok_1',
        createdAt: new Date(),
      },
      { storeAfter },
    );
    return id;
  }

  /** Resolves once `check` holds, trying every millisecond or two for at most `ms`. */
  async function until(check: () => Promise<boolean>, ms = FLUSH_MS / 2) {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
      await sleep(1);
    }
  }

  const delta = (text: string) => ({ type: 'output_text.delta', delta: text }) as const;
  const toolCall = () =>
    ({
      type: 'tool_call.started',
      call_id: 'call_1',
      tool: 'memory_search',
      arguments: { query: 'x' },
    }) as const;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('stores the query at once, a tool call with the text before it in one batch a moment later, never one write per event', async () => {
    const appendEvents = jest.spyOn(storage.queries, 'appendEvents');
    try {
      const log = processLog();
      const id = await openQuery(log);
      // Its record is queued when it opens (the run does not wait for it), and written before the first batch.
      await until(async () => (await storage.queries.get(id)) !== null);
      expect(await storage.queries.get(id)).toMatchObject({ status: 'running', runnerId: 'runner_a' });
      for (let i = 0; i < 50; i++) log.append(id, delta(`w${i} `));
      log.append(id, toolCall());
      expect(appendEvents).not.toHaveBeenCalled();
      expect(await storage.queries.events(id, 0)).toEqual([]);
      await sleep(FLUSH_MS * 3);
      expect(appendEvents).toHaveBeenCalledTimes(1);
      expect((await storage.queries.events(id, 0)).map((e) => e.sequence_number)).toEqual(
        Array.from({ length: 51 }, (_, i) => i + 1),
      );
    } finally {
      appendEvents.mockRestore();
    }
  });

  it("writes an answer's text with its end, however long it streams, and another query's text not with it", async () => {
    const appendEvents = jest.spyOn(storage.queries, 'appendEvents');
    try {
      const log = processLog();
      const id = await openQuery(log);
      const other = await openQuery(log);
      await until(async () => (await storage.queries.get(other)) !== null);
      appendEvents.mockClear();
      log.append(id, { type: 'query.created', query_id: id, discussion_id: discussionId } as never);
      // A token every 5 ms for ten flush delays and more.
      for (let i = 0; i < 100; i++) {
        log.append(id, delta(`w${i} `));
        log.append(other, delta(`o${i} `));
        await sleep(5);
      }
      expect(appendEvents).not.toHaveBeenCalled();
      await log.end(id, { type: 'query.incomplete', reason: 'cancelled' });
      // One row write: every event and the end, the other query's text still waiting for its own.
      expect(appendEvents).toHaveBeenCalledTimes(1);
      expect((await storage.queries.events(id, 0)).length).toBe(102);
      expect(await storage.queries.events(other, 0)).toEqual([]);
      await log.end(other, { type: 'query.incomplete', reason: 'cancelled' });
      expect((await storage.queries.events(other, 0)).length).toBe(101);
    } finally {
      appendEvents.mockRestore();
    }
  });

  it("keeps a query's text when its answer's commit fails, and stores it with the end it gets instead", async () => {
    const log = processLog();
    const id = await openQuery(log);
    const other = await openQuery(log);
    await until(async () => (await storage.queries.get(other)) !== null);
    for (let i = 0; i < 3; i++) {
      log.append(id, delta(`w${i} `));
      log.append(other, delta(`o${i} `));
    }
    const appendEvents = jest
      .spyOn(storage.queries, 'appendEvents')
      .mockRejectedValueOnce(new Error('disk full'));
    try {
      const answer = { sql: 'SELECT 1', params: [] };
      await expect(
        log.end(id, { type: 'query.completed' } as never, new Date(), { storeWith: [answer] }),
      ).rejects.toThrow('disk full');
      log.append(id, delta('late '));
      await log.end(id, { type: 'query.incomplete', reason: 'cancelled' });
    } finally {
      appendEvents.mockRestore();
    }
    const stored = await storage.queries.events(id, 0);
    expect(stored.map((event) => ('delta' in event ? event.delta : event.type))).toEqual([
      'w0 ',
      'w1 ',
      'w2 ',
      'late ',
      'query.incomplete',
    ]);
    // The other query's text is still its own, for its own end.
    expect(await storage.queries.events(other, 0)).toEqual([]);
    await log.end(other, { type: 'query.incomplete', reason: 'cancelled' });
    expect((await storage.queries.events(other, 0)).length).toBe(4);
  });

  it('stores the JSON its streams framed each event with: an event is serialized once', async () => {
    const appendEvents = jest.spyOn(storage.queries, 'appendEvents');
    const stringify = jest.spyOn(JSON, 'stringify');
    try {
      const log = processLog();
      const id = await openQuery(log);
      const frames: string[] = [];
      await log.subscribe(id, 0, (event) => frames.push(frameOf(event)));
      stringify.mockClear();
      log.append(id, toolCall());
      expect(stringify).toHaveBeenCalledTimes(1);
      await until(async () => appendEvents.mock.calls.length > 0, FLUSH_MS * 3);
      const [[stored]] = appendEvents.mock.calls.map(([events]) => events);
      expect(frames).toEqual([`id: 1\nevent: tool_call.started\ndata: ${stored.json}\n\n`]);
      expect(await storage.queries.events(id, 0)).toEqual([{ ...toolCall(), sequence_number: 1 }]);
    } finally {
      stringify.mockRestore();
      appendEvents.mockRestore();
    }
  });

  it('stores the terminal event, everything before it and the status before anyone hears the query ended', async () => {
    const log = processLog();
    const id = await openQuery(log);
    log.append(id, delta('a'));
    log.append(id, delta('b'));
    const order: string[] = [];
    await log.subscribe(id, 0, (event) => order.push(`heard ${event.sequence_number}`));
    const original = storage.queries.appendEvents.bind(storage.queries);
    const write = jest.spyOn(storage.queries, 'appendEvents').mockImplementation(async (...args) => {
      await original(...args);
      order.push(
        `stored ${JSON.stringify(await storage.queries.get(id).then((q) => [q?.status, q?.lastEventId]))}`,
      );
    });
    try {
      expect(await log.end(id, { type: 'query.incomplete', reason: 'cancelled' })).toMatchObject({
        sequence_number: 3,
      });
    } finally {
      write.mockRestore();
    }
    // One write: the last events with the status (on SQLite, one commit).
    expect(order).toEqual(['heard 1', 'heard 2', 'stored ["incomplete",3]', 'heard 3']);
    // Only the first end counts, and nothing follows it.
    expect(await log.end(id, { type: 'query.incomplete', reason: 'timeout' })).toBeUndefined();
    expect(() => log.append(id, delta('late'))).toThrow(/ended/);
  });

  it('opens a query at once and stores its record once what it refers to exists, before its events', async () => {
    let discussionStored: () => void = () => undefined;
    const storeAfter = new Promise<void>((resolve) => (discussionStored = resolve));
    const log = processLog();
    const id = await openQuery(log, storeAfter);
    expect(await log.get(id)).toMatchObject({ status: 'running' });
    log.append(id, delta('a'));
    await sleep(FLUSH_MS * 2);
    // The batch waits behind the record, the record behind what it refers to.
    expect(await storage.queries.get(id)).toBeNull();
    expect(await storage.queries.events(id, 0)).toEqual([]);
    discussionStored();
    await log.end(id, { type: 'query.incomplete', reason: 'cancelled' });
    expect(await storage.queries.get(id)).toMatchObject({ status: 'incomplete', lastEventId: 2 });
  });

  it('stores nothing of a query whose discussion could not be stored, and still ends it live', async () => {
    const storeAfter = Promise.reject(new Error('no discussion'));
    storeAfter.catch(() => undefined);
    const log = processLog();
    const id = await openQuery(log, storeAfter);
    log.append(id, delta('a'));
    expect(await log.end(id, { type: 'query.failed', error: { code: 'internal' } } as never)).toMatchObject({
      sequence_number: 2,
    });
    expect(await storage.queries.get(id)).toBeNull();
    expect(await storage.queries.events(id, 0)).toEqual([]);
    // Deliberately not stored: not an error to report.
    expect(errors).toEqual([]);
  });

  it('answers for a query it does not hold, as after a restart: status, events, and a replay that ends', async () => {
    const before = processLog();
    const id = await openQuery(before);
    before.append(id, delta('one '));
    before.append(id, delta('two'));
    await before.end(id, { type: 'query.incomplete', reason: 'cancelled' });

    const after = processLog('runner_b');
    expect(await after.get(id)).toMatchObject({
      id,
      userId,
      status: 'incomplete',
      endedAt: expect.any(Date),
      lastEventId: 3,
    });
    expect((await after.events(id, 1)).map((e) => e.type)).toEqual(['output_text.delta', 'query.incomplete']);
    const replayed: number[] = [];
    await after.subscribe(id, 1, (event) => replayed.push(event.sequence_number));
    expect(replayed).toEqual([2, 3]);
    expect(await after.get(newId('query'))).toBeUndefined();
  });

  it('replays a query it ran once its memory has let it go: from the database, every event as its stream had it, and whose it is', async () => {
    const keptMs = 10;
    const log = processLog('runner_a', 1_000, new MemoryQueryEventLog(keptMs, 'runner_a'));
    const id = await openQuery(log);
    const streamed: QueryEvent[] = [];
    await log.subscribe(id, 0, (event) => streamed.push(event));
    log.append(id, delta('one '));
    log.append(id, toolCall());
    log.append(id, delta('two'));
    await log.end(id, { type: 'query.incomplete', reason: 'cancelled' });
    await sleep(keptMs * 3);

    expect(await log.get(id)).toMatchObject({
      userId,
      owner: 'token:tok_1',
      status: 'incomplete',
      lastEventId: 4,
    });
    const replayed: QueryEvent[] = [];
    await log.subscribe(id, 0, (event) => replayed.push(event));
    expect(streamed).toHaveLength(4);
    expect(replayed).toEqual(streamed);
  });

  it('follows a query that another process runs, from what that process stores, up to its terminal event', async () => {
    const runner = processLog('runner_a');
    const id = await openQuery(runner);
    runner.append(id, toolCall());
    await sleep(FLUSH_MS * 3);

    const other = processLog('runner_b', 20);
    const seen: QueryEvent[] = [];
    await other.subscribe(id, 0, (event) => seen.push(event));
    expect(seen.map((e) => e.sequence_number)).toEqual([1]);
    runner.append(id, delta('two'));
    await runner.end(id, { type: 'query.incomplete', reason: 'cancelled' });
    await sleep(100);
    expect(seen.map((e) => [e.sequence_number, e.type])).toEqual([
      [1, 'tool_call.started'],
      [2, 'output_text.delta'],
      [3, 'query.incomplete'],
    ]);
  });
  describe('a live copy shared with the process that runs the query (SECURITY B8)', () => {
    it('reads the database instead once it holds the end that the live copy missed', async () => {
      const shared = new SharedLiveLog();
      const runner = processLog('runner_a', 1_000, shared);
      const reader = processLog('runner_b', 20, shared);
      const id = await openQuery(runner);
      runner.append(id, toolCall());
      await sleep(FLUSH_MS * 3);
      expect(await reader.get(id)).toMatchObject({ status: 'running', lastEventId: 1 });
      // The runner stored its end, but its write to the live copy was lost (a Redis outage).
      const terminal = { type: 'query.incomplete', reason: 'cancelled', sequence_number: 2 } as const;
      await storage.queries.appendEvents(
        [{ queryId: id, event: terminal }],
        [{ queryId: id, status: 'incomplete', endedAt: new Date() }],
      );

      expect(await reader.get(id)).toMatchObject({ status: 'incomplete', lastEventId: 2 });
      expect((await reader.events(id, 1)).map((e) => e.type)).toEqual(['query.incomplete']);
      const replayed: number[] = [];
      await reader.subscribe(id, 0, (event) => replayed.push(event.sequence_number));
      expect(replayed).toEqual([1, 2]);
    });

    it('follows the rest of a stream from the database once the live log stops vouching for it', async () => {
      const shared = new SharedLiveLog();
      const runner = processLog('runner_a', 1_000, shared);
      const reader = processLog('runner_b', 20, shared);
      const id = await openQuery(runner);
      runner.append(id, delta('a'));
      const seen: number[] = [];
      await reader.subscribe(id, 0, (event) => seen.push(event.sequence_number));
      runner.append(id, delta('b'));
      expect(seen).toEqual([1, 2]);
      await sleep(FLUSH_MS * 3);

      // The runner crashes: the live copy stays as it was, recovery stores the end in the database.
      shared.lost.add(id);
      await storage.queries.appendEvents(
        [{ queryId: id, event: { type: 'query.incomplete', reason: 'interrupted', sequence_number: 3 } }],
        [{ queryId: id, status: 'incomplete', endedAt: new Date() }],
      );
      await until(async () => seen.length === 3, 500);
      expect(seen).toEqual([1, 2, 3]);
      expect(await reader.get(id)).toMatchObject({ status: 'incomplete', lastEventId: 3 });
    });
  });
});
