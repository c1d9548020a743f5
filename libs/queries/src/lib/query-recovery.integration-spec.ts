import type { QueryEvent } from '@assistant/contracts';
import { newId, type Storage } from '@assistant/storage';
import { openTestStorage } from '@assistant/storage/testing';
import {
  type ServerConfig,
  type QueryEventLog,
  NO_RUNNER_LIVENESS,
  type RunnerLiveness,
} from '@assistant/server-kit';
import { QueryRecovery } from './query-recovery';
import { MemoryQueryEventLog } from './query-event-log';

const delta = (n: number): QueryEvent => ({ type: 'output_text.delta', delta: `w${n}`, sequence_number: n });

describe.each(['sqlite', 'postgres'] as const)('QueryRecovery on %s', (dialect) => {
  let storage: Storage;
  let dispose: () => Promise<void>;
  let userId: string;
  let discussionId: string;

  beforeEach(async () => {
    ({ storage, dispose } = await openTestStorage(dialect));
    userId = (await storage.users.create({ email: 'recovery@example.com', displayName: 'R' })).id;
    discussionId = (await storage.discussions.create(userId, 'Recovery')).id;
  });
  afterEach(async () => dispose());

  async function storedQuery(runnerId: string, createdAt: Date, events: QueryEvent[]) {
    const id = newId('query');
    await storage.queries.create({
      id,
      userId,
      discussionId,
      messageId: newId('message'),
      model: 'builtin',
      owner: 'token:tok_1',
      runnerId,
      createdAt,
    });
    await storage.queries.appendEvents(events.map((event) => ({ queryId: id, event })));
    return id;
  }

  async function bootstrap(
    deployment: ServerConfig['deployment'],
    live: QueryEventLog = new MemoryQueryEventLog(),
    runners: RunnerLiveness = NO_RUNNER_LIVENESS,
  ) {
    const recovery = new QueryRecovery(
      storage.queries,
      { deployment } as ServerConfig,
      'runner_new',
      live,
      runners,
    );
    await recovery.onApplicationBootstrap();
    await recovery.beforeApplicationShutdown();
  }

  /** Sets the heartbeat of a query's runner to `at`, as that process last renewed it. */
  const lastHeartbeat = (runnerId: string, at: Date) => storage.queries.heartbeat(runnerId, at);

  it('self-hosted: ends every unfinished query at start-up with query.incomplete (interrupted) after its last event', async () => {
    // Stored by a process before this one started: its heartbeat is older than the start-up, if only by a little
    // (the writes take less than a millisecond, and a heartbeat of the start-up's own millisecond is not older).
    const now = new Date(Date.now() - 1_000);
    const cut = await storedQuery('runner_dead', now, [delta(1), delta(2), delta(3)]);
    const silent = await storedQuery('runner_dead', now, []);
    // Died after storing its terminal event but before its status: only the status is missing.
    const almost = await storedQuery('runner_dead', now, [
      delta(1),
      { type: 'query.incomplete', reason: 'cancelled', sequence_number: 2 },
    ]);
    const done = await storedQuery('runner_dead', now, [
      delta(1),
      { type: 'query.incomplete', reason: 'cancelled', sequence_number: 2 },
    ]);
    await storage.queries.end(done, 'incomplete', now);

    await bootstrap('self-hosted');

    expect(await storage.queries.get(cut)).toMatchObject({
      status: 'incomplete',
      endedAt: expect.any(Date),
      lastEventId: 4,
    });
    expect(await storage.queries.events(cut, 3)).toEqual([
      { type: 'query.incomplete', reason: 'interrupted', sequence_number: 4 },
    ]);
    // Nothing of it kept (its text waits for its end): it replays as it started, then its end.
    const silentQuery = await storage.queries.get(silent);
    expect(await storage.queries.events(silent, 0)).toEqual([
      {
        type: 'query.created',
        query_id: silent,
        discussion_id: discussionId,
        message_id: silentQuery?.messageId,
        model: 'builtin',
        sequence_number: 1,
      },
      { type: 'query.incomplete', reason: 'interrupted', sequence_number: 2 },
    ]);
    expect(await storage.queries.get(almost)).toMatchObject({ status: 'incomplete', lastEventId: 2 });
    expect(await storage.queries.events(almost, 1)).toEqual([
      { type: 'query.incomplete', reason: 'cancelled', sequence_number: 2 },
    ]);
    expect(await storage.queries.get(done)).toMatchObject({ status: 'incomplete', lastEventId: 2 });
  });

  it("hosted: leaves another live process's runs alone and ends those whose process stopped its heartbeat", async () => {
    const longAgo = new Date(Date.now() - 5 * 60_000);
    const alive = await storedQuery('runner_alive', longAgo, [delta(1)]);
    await storage.queries.heartbeat('runner_alive', new Date());
    const dead = await storedQuery('runner_dead', longAgo, [delta(1)]);
    const young = await storedQuery('runner_young', new Date(), [delta(1)]);

    await bootstrap('hosted');

    expect(await storage.queries.get(alive)).toMatchObject({ status: 'running', endedAt: null });
    expect(await storage.queries.get(young)).toMatchObject({ status: 'running', endedAt: null });
    expect(await storage.queries.get(dead)).toMatchObject({ status: 'incomplete', lastEventId: 2 });
    expect(await storage.queries.events(dead, 1)).toEqual([
      { type: 'query.incomplete', reason: 'interrupted', sequence_number: 2 },
    ]);
  });
  it('completes every call the lost run left open before query.incomplete, as a cancel tells them', async () => {
    const now = new Date(Date.now() - 1_000);
    const waiting = await storedQuery('runner_dead', now, [
      { type: 'tool_call.started', call_id: 'c1', tool: 'home_set_state', arguments: {}, sequence_number: 1 },
      {
        type: 'tool_call.awaiting_confirmation',
        call_id: 'c1',
        tool: 'home_set_state',
        arguments: {},
        sequence_number: 2,
      },
    ]);

    await bootstrap('self-hosted');

    expect(await storage.queries.events(waiting, 2)).toEqual([
      {
        type: 'tool_call.completed',
        call_id: 'c1',
        tool: 'home_set_state',
        status: 'denied',
        error: expect.any(String),
        sequence_number: 3,
      },
      { type: 'query.incomplete', reason: 'interrupted', sequence_number: 4 },
    ]);
    expect(await storage.queries.get(waiting)).toMatchObject({ status: 'incomplete', lastEventId: 4 });
  });

  it('hosted: ends the runs of a process whose lease lapsed once their heartbeat is 20 s old, not those of a live one', async () => {
    const longAgo = new Date(Date.now() - 5 * 60_000);
    const lapsed = await storedQuery('runner_lapsed', longAgo, [delta(1)]);
    const leased = await storedQuery('runner_leased', longAgo, [delta(1)]);
    const recent = await storedQuery('runner_lapsed_recently', longAgo, [delta(1)]);
    await lastHeartbeat('runner_lapsed', new Date(Date.now() - 25_000));
    await lastHeartbeat('runner_leased', new Date(Date.now() - 25_000));
    await lastHeartbeat('runner_lapsed_recently', new Date(Date.now() - 5_000));
    const runners: RunnerLiveness = { isGone: async (id) => id.startsWith('runner_lapsed') };

    await bootstrap('hosted', new MemoryQueryEventLog(), runners);

    expect(await storage.queries.get(lapsed)).toMatchObject({ status: 'incomplete', lastEventId: 2 });
    // Its lease lives (a database hiccup delayed its heartbeat), or its heartbeat is recent (Redis lost its lease).
    expect(await storage.queries.get(leased)).toMatchObject({ status: 'running', endedAt: null });
    expect(await storage.queries.get(recent)).toMatchObject({ status: 'running', endedAt: null });
  });

  it('hosted: stores first what the live log held beyond the database, then gives the live log the same end', async () => {
    const id = await storedQuery('runner_dead', new Date(Date.now() - 5 * 60_000), [delta(1)]);
    const ended: unknown[] = [];
    const live = {
      runnerId: 'runner_new',
      events: async (queryId: string, after: number) =>
        queryId === id && after === 1 ? [delta(2), delta(3)] : [],
      endRecovered: async (...args: unknown[]) => void ended.push(args),
    } as unknown as QueryEventLog;

    await bootstrap('hosted', live);

    const terminal = { type: 'query.incomplete', reason: 'interrupted', sequence_number: 4 };
    expect(await storage.queries.events(id, 0)).toEqual([delta(1), delta(2), delta(3), terminal]);
    expect(await storage.queries.get(id)).toMatchObject({ status: 'incomplete', lastEventId: 4 });
    expect(ended).toEqual([[id, 1, [delta(2), delta(3), terminal], expect.any(Date)]]);
  });
});
