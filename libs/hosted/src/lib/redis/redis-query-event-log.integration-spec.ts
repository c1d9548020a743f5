/**
 * The hosted query event log on the machine's Redis, as two instances see it: what one runs, the other reads,
 * resumes and follows, with exactly the missing events, through one reader connection for every stream.
 */
import { once } from 'node:events';
import type { QueryEvent } from '@assistant/contracts';
import { RedisQueryEventLog } from './redis-query-event-log';
import { clientName, RedisConnections } from './redis-connections';
import { cleanUp, cuttableLink, freshPrefix, openTestRedis } from '../../testing/redis-test-connections';

const record = (id: string) => ({
  id,
  userId: 'usr_1',
  discussionId: 'dsc_1',
  messageId: 'msg_1',
  model: 'builtin',
  owner: 'token:tok_1',
  createdAt: new Date('2026-01-01T10:00:00Z'),
});
const delta = (text: string) => ({ type: 'output_text.delta' as const, delta: text });
const errors: unknown[] = [];
/** The runners that the test has declared gone (their process crashed). */
const goneRunners = new Set<string>();
const options = (runnerId: string) => ({
  runningTtlSeconds: 600,
  runnerId,
  runners: { isGone: async (id: string) => goneRunners.has(id) },
  onError: (error: unknown) => errors.push(error),
});

let redisA: RedisConnections;
let redisB: RedisConnections;
let a: RedisQueryEventLog;
let b: RedisQueryEventLog;

beforeEach(async () => {
  const prefix = freshPrefix();
  [redisA, redisB] = await Promise.all([openTestRedis(prefix), openTestRedis(prefix)]);
  a = new RedisQueryEventLog(redisA, options('runner_a'));
  b = new RedisQueryEventLog(redisB, options('runner_b'));
  errors.length = 0;
  goneRunners.clear();
});
afterEach(async () => {
  a.close();
  b.close();
  await cleanUp(redisA, redisB);
  expect(errors).toEqual([]);
});

/** Resolves once `listener` has been given `count` events. */
function collect(count: number): {
  events: QueryEvent[];
  done: Promise<void>;
  listener(e: QueryEvent): void;
} {
  const events: QueryEvent[] = [];
  let resolve: () => void;
  const done = new Promise<void>((r) => (resolve = r));
  return {
    events,
    done,
    listener: (event) => {
      events.push(event);
      if (events.length === count) resolve();
    },
  };
}

/** Resolves `read()`'s value once `done` holds for it: a pipeline written one tick later lands when Redis says so. */
async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 2000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    value = await read();
  }
  return value;
}

it('hands another instance the record and exactly the events after its Last-Event-ID, then the live ones', async () => {
  await a.open(record('qry_1'));
  for (const text of ['a', 'b', 'c']) a.append('qry_1', delta(text));
  const landed = await eventually(
    () => b.get('qry_1'),
    (stored) => stored?.lastEventId === 3,
  );

  expect(landed).toMatchObject({ userId: 'usr_1', status: 'running', lastEventId: 3 });
  const seen = collect(4);
  const stop = await b.subscribe('qry_1', 1, seen.listener);
  a.append('qry_1', delta('d'));
  await a.end(
    'qry_1',
    {
      type: 'query.completed',
      message_id: 'msg_1',
      text: 'abcd',
      usage: { input_tokens: 1, output_tokens: 4 },
      finish_reason: 'stop',
    },
    new Date('2026-01-01T10:01:00Z'),
  );
  await seen.done;
  await new Promise((resolve) => setTimeout(resolve, 50));

  // Nothing twice, nothing missing, nothing after the end.
  expect(seen.events.map((e) => e.sequence_number)).toEqual([2, 3, 4, 5]);
  expect(seen.events.at(-1)).toMatchObject({
    type: 'query.completed',
    message_id: 'msg_1',
    text: 'abcd',
    usage: { input_tokens: 1, output_tokens: 4 },
    finish_reason: 'stop',
  });
  stop();
  expect(b.followedStreams).toBe(0);
});

it('opens a query without waiting for Redis, which still has the record before any of its events', async () => {
  // Every command of the connection waits until the test lets it go: open must resolve all the same.
  let letGo!: () => void;
  const gate = new Promise<void>((resolve) => (letGo = resolve));
  const sendCommand = redisA.command.sendCommand.bind(redisA.command);
  const held = jest
    .spyOn(redisA.command, 'sendCommand')
    .mockImplementation((...args) => (void gate.then(() => sendCommand(...args)), args[0].promise));

  await a.open(record('qry_5'));
  a.append('qry_5', delta('a'));
  expect(await b.get('qry_5')).toBeUndefined();

  letGo();
  await new Promise((resolve) => setTimeout(resolve, 50));
  held.mockRestore();
  expect(await b.get('qry_5')).toMatchObject({ userId: 'usr_1', status: 'running', lastEventId: 1 });
  expect((await b.events('qry_5')).map((e) => e.sequence_number)).toEqual([1]);
});

it('refuses to open a query while Redis cannot be reached (503)', async () => {
  const down = await openTestRedis(redisA.prefix);
  down.close();
  await once(down.command, 'end');
  const log = new RedisQueryEventLog(down, options('runner_down'));
  await expect(log.open(record('qry_6'))).rejects.toMatchObject({ code: 'service_unavailable' });
  expect(await b.get('qry_6')).toBeUndefined();
  log.close();
});

it("gives a running query's event stream its lifetime once, with its first events, not every tick", async () => {
  await a.open(record('qry_3'));
  const stream = redisB.key('query', 'qry_3', 'events');
  a.append('qry_3', delta('a'));
  const sequence = async () => (await b.events('qry_3')).map((e) => e.sequence_number);
  await eventually(sequence, (numbers) => numbers.length === 1);
  expect(await redisB.command.ttl(stream)).toBeGreaterThan(590);
  // Taken away (as nothing else would): the next ticks' events do not give it again.
  await redisB.command.persist(stream);
  a.append('qry_3', delta('b'));
  expect(await eventually(sequence, (numbers) => numbers.length === 2)).toEqual([1, 2]);
  expect(await redisB.command.ttl(stream)).toBe(-1);
  await a.end('qry_3', { type: 'query.incomplete', reason: 'cancelled' });
  expect(await redisB.command.ttl(stream)).toBeGreaterThan(14 * 60);
});

it('writes the terminal event and the ended status together, and keeps both for 15 minutes', async () => {
  await a.open(record('qry_2'));
  a.append('qry_2', {
    type: 'tool_call.awaiting_confirmation',
    call_id: 'c1',
    tool: 't',
    input: {},
  } as never);
  const waiting = await eventually(
    () => b.get('qry_2'),
    (stored) => stored?.lastEventId === 1,
  );
  expect(waiting?.status).toBe('awaiting_confirmation');

  const terminal = await a.end('qry_2', { type: 'query.incomplete', reason: 'cancelled' });

  expect(terminal?.sequence_number).toBe(2);
  expect(await b.get('qry_2')).toMatchObject({
    status: 'incomplete',
    endedAt: expect.any(Date),
    lastEventId: 2,
  });
  expect((await b.events('qry_2', 1)).map((e) => e.type)).toEqual(['query.incomplete']);
  const ttl = await redisB.command.ttl(redisB.key('query', 'qry_2', 'events'));
  expect(ttl).toBeGreaterThan(14 * 60);
  expect(ttl).toBeLessThanOrEqual(15 * 60);
  expect(await redisB.command.ttl(redisB.key('query', 'qry_2'))).toBeGreaterThan(14 * 60);
  // A finished query replays and ends at once, without following.
  const replay = collect(2);
  await b.subscribe('qry_2', 0, replay.listener);
  expect(replay.events.map((e) => e.sequence_number)).toEqual([1, 2]);
  expect(b.followedStreams).toBe(0);
});

it('delivers to its own streams at once, before Redis has the event', async () => {
  await a.open(record('qry_3'));
  const seen: QueryEvent[] = [];
  await a.subscribe('qry_3', 0, (event) => seen.push(event));
  a.append('qry_3', delta('now'));
  expect(seen).toHaveLength(1);
  expect(await redisA.command.xlen(redisA.key('query', 'qry_3', 'events'))).toBe(0);
  const length = () => redisA.command.xlen(redisA.key('query', 'qry_3', 'events'));
  expect(await eventually(length, (n) => n === 1)).toBe(1);
});

it('sends text deltas that come quickly together, and a delta after a pause or any other event at the end of its tick', async () => {
  // A write is one command when one query has events to send (as here), a pipeline when several have.
  const pipelines = jest.spyOn(redisA.command, 'pipeline');
  const commands = jest.spyOn(redisA.command as never, 'assistantWriteQuery');
  const writes = () => pipelines.mock.calls.length + commands.mock.calls.length;
  const length = () => redisA.command.xlen(redisA.key('query', 'qry_burst', 'events'));
  const endOfTick = () => new Promise((resolve) => setImmediate(resolve));
  try {
    await a.open(record('qry_burst'));
    await endOfTick();
    expect(writes()).toBe(1);

    for (const text of ['a', 'b', 'c']) a.append('qry_burst', delta(text));
    await endOfTick();
    // Just after a write, deltas wait for company (this instance's own streams had them at once)…
    expect(writes()).toBe(1);
    // … and go by themselves when none comes.
    expect(await eventually(length, (n) => n === 3)).toBe(3);
    expect(writes()).toBe(2);

    await new Promise((resolve) => setTimeout(resolve, 60));
    a.append('qry_burst', delta('d'));
    await endOfTick();
    // Long enough after the last write, a delta goes at once: a slow stream's tokens one by one.
    expect(writes()).toBe(3);
    // (Writes go one at a time: the next is sent once Redis has answered this one.)
    expect(await eventually(length, (n) => n === 4)).toBe(4);

    a.append('qry_burst', delta('e'));
    a.append('qry_burst', {
      type: 'tool_call.awaiting_confirmation',
      call_id: 'c1',
      tool: 't',
      input: {},
    } as never);
    await endOfTick();
    // A confirmation asked for is not kept waiting, and the delta before it goes with it.
    expect(writes()).toBe(4);
    expect(await eventually(length, (n) => n === 6)).toBe(6);
    expect(await b.get('qry_burst')).toMatchObject({ status: 'awaiting_confirmation', lastEventId: 6 });
    // A lone query's writes cost no pipeline.
    expect(pipelines).not.toHaveBeenCalled();
  } finally {
    pipelines.mockRestore();
    commands.mockRestore();
  }
  await a.end('qry_burst', { type: 'query.incomplete', reason: 'cancelled' });
});

it('takes a write sent again after one that landed: what the stream has already is kept, and no error', async () => {
  // As if a pipeline had gone through but its answer was lost: Redis has the first event already.
  const landed = { type: 'output_text.delta', delta: 'a', sequence_number: 1 };
  await redisB.command.xadd(redisB.key('query', 'qry_again', 'events'), '0-1', 'e', JSON.stringify(landed));
  await a.open(record('qry_again'));
  a.append('qry_again', delta('a'));
  a.append('qry_again', delta('b'));
  await a.end('qry_again', { type: 'query.incomplete', reason: 'cancelled' });

  expect((await b.events('qry_again')).map((e) => e.sequence_number)).toEqual([1, 2, 3]);
  expect(await b.get('qry_again')).toMatchObject({ status: 'incomplete', lastEventId: 3 });
});

it('follows many streams of another instance with its one reader connection', async () => {
  const ids = Array.from({ length: 200 }, (_, i) => `qry_many_${i}`);
  for (const id of ids) await a.open(record(id));
  expect(await clientCount(redisA)).toBe(6);
  const seen = collect(ids.length);
  const stops = await Promise.all(ids.map((id) => b.subscribe(id, 0, seen.listener)));
  expect(b.followedStreams).toBe(200);

  for (const id of ids) a.append(id, delta(id));
  await seen.done;

  expect(new Set(seen.events.map((e) => (e as { delta: string }).delta))).toEqual(new Set(ids));
  expect(await clientCount(redisA)).toBe(6);
  stops.forEach((stop) => stop());
  for (const id of ids) await a.end(id, { type: 'query.incomplete', reason: 'cancelled' });
});

describe('through a Redis outage (SECURITY B8)', () => {
  const awaiting = {
    type: 'tool_call.awaiting_confirmation',
    call_id: 'c1',
    tool: 'home_set_state',
    arguments: {},
  } as const;

  it('sends again, in order, what Redis did not take while the runner was cut off from it: events, status and end', async () => {
    const link = await cuttableLink();
    const redisC = await RedisConnections.open(link.url, redisA.prefix);
    const c = new RedisQueryEventLog(redisC, options('runner_c'));
    try {
      await c.open(record('qry_cut'));
      c.append('qry_cut', delta('a'));
      c.append('qry_cut', awaiting);
      await eventually(
        () => b.get('qry_cut'),
        (stored) => stored?.status === 'awaiting_confirmation',
      );

      link.cut();
      // Approved meanwhile on the runner's own instance: the call runs and the answer goes on.
      c.append('qry_cut', {
        type: 'tool_call.completed',
        call_id: 'c1',
        tool: 'home_set_state',
        status: 'ok',
        output: {},
      });
      for (const text of ['b', 'c', 'd']) c.append('qry_cut', delta(text));
      await new Promise((resolve) => setTimeout(resolve, 100));
      await c.end('qry_cut', { type: 'query.incomplete', reason: 'cancelled' });
      expect(await b.get('qry_cut')).toMatchObject({ status: 'awaiting_confirmation', lastEventId: 2 });

      link.restore();
      const ended = await eventually(
        () => b.get('qry_cut'),
        (stored) => stored?.endedAt !== null && stored !== undefined,
        5_000,
      );
      expect(ended).toMatchObject({ status: 'incomplete', lastEventId: 7 });
      expect((await b.events('qry_cut')).map((e) => [e.sequence_number, e.type])).toEqual([
        [1, 'output_text.delta'],
        [2, 'tool_call.awaiting_confirmation'],
        [3, 'tool_call.completed'],
        [4, 'output_text.delta'],
        [5, 'output_text.delta'],
        [6, 'output_text.delta'],
        [7, 'query.incomplete'],
      ]);
      expect(await redisB.command.ttl(redisB.key('query', 'qry_cut'))).toBeGreaterThan(14 * 60);
      // The outage was told (once), not each write that failed.
      expect(errors.length).toBeGreaterThan(0);
      errors.length = 0;
    } finally {
      c.close();
      redisC.close();
      await link.close();
    }
  });

  it('does not vouch for a running query whose runner is gone: the database tells what became of it', async () => {
    await a.open(record('qry_lost'));
    a.append('qry_lost', awaiting);
    expect(
      await eventually(
        () => b.get('qry_lost'),
        (stored) => stored?.status === 'awaiting_confirmation',
      ),
    ).toMatchObject({ status: 'awaiting_confirmation' });

    goneRunners.add('runner_a');
    expect(await b.get('qry_lost')).toBeUndefined();
    // Its own process still knows it, and an end is an end whoever wrote it.
    expect(await a.get('qry_lost')).toMatchObject({ status: 'awaiting_confirmation' });
    await a.end('qry_lost', { type: 'query.incomplete', reason: 'cancelled' });
    expect(await b.get('qry_lost')).toMatchObject({ status: 'incomplete', lastEventId: 2 });
  });

  it('takes the end that recovery gave a query whose runner died, if its copy is whole; else gives the copy up', async () => {
    await a.open(record('qry_dead'));
    a.append('qry_dead', delta('a'));
    a.append('qry_dead', awaiting);
    await eventually(
      () => b.events('qry_dead'),
      (events) => events.length === 2,
    );
    const closing: QueryEvent[] = [
      {
        type: 'tool_call.completed',
        call_id: 'c1',
        tool: 'home_set_state',
        status: 'denied',
        sequence_number: 3,
      },
      { type: 'query.incomplete', reason: 'interrupted', sequence_number: 4 },
    ];
    const seen = collect(2);
    await b.subscribe('qry_dead', 2, seen.listener);

    await b.endRecovered('qry_dead', 2, closing, new Date('2026-01-01T10:05:00Z'));

    await seen.done;
    expect(seen.events).toEqual(closing);
    expect(await b.get('qry_dead')).toMatchObject({ status: 'incomplete', lastEventId: 4 });
    expect(await redisB.command.ttl(redisB.key('query', 'qry_dead'))).toBeGreaterThan(14 * 60);

    // A copy that lacks events before the end (Redis lost them): dropped, not completed with a hole.
    await a.open(record('qry_holed'));
    a.append('qry_holed', delta('a'));
    await eventually(
      () => b.events('qry_holed'),
      (events) => events.length === 1,
    );
    await b.endRecovered('qry_holed', 3, [{ ...closing[1], sequence_number: 4 }], new Date());
    expect(await redisB.command.exists(redisB.key('query', 'qry_holed'))).toBe(0);
    expect(await redisB.command.exists(redisB.key('query', 'qry_holed', 'events'))).toBe(0);
    await a.end('qry_dead', { type: 'query.incomplete', reason: 'cancelled' });
    await a.end('qry_holed', { type: 'query.incomplete', reason: 'cancelled' });
  });
});

/** The connections of this test's deployment (both instances) that Redis has open. */
async function clientCount(redis: RedisConnections): Promise<number> {
  const list = String(await redis.command.call('CLIENT', 'LIST'))
    .trim()
    .split('\n');
  return list.filter((line) => line.includes(` name=${clientName(redis.prefix, '')}`)).length;
}
