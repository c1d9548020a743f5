import type { QueryEvent } from '@assistant/contracts';
import { newId, type Storage } from '@assistant/storage';
import { openTestStorage } from '@assistant/storage/testing';
import type { ServerConfig } from '../config/server-config';
import { QueryRecovery } from './query-recovery';

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
      runnerId,
      createdAt,
    });
    await storage.queries.appendEvents(events.map((event) => ({ queryId: id, event })));
    return id;
  }

  async function bootstrap(deployment: ServerConfig['deployment']) {
    const recovery = new QueryRecovery(storage, { deployment } as ServerConfig, 'runner_new');
    await recovery.onApplicationBootstrap();
    await recovery.beforeApplicationShutdown();
  }

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
    expect(await storage.queries.events(silent, 0)).toEqual([
      { type: 'query.incomplete', reason: 'interrupted', sequence_number: 1 },
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
});
