import type { QueryEvent } from '@assistant/contracts';
import { openTestStorage, type TestStorage } from './testing';
import type { Storage } from './storage';
import { newId } from './ids';

const delta = (n: number): QueryEvent => ({ type: 'output_text.delta', delta: `w${n} `, sequence_number: n });

describe.each(['sqlite', 'postgres'] as const)('queries and their events on %s', (dialect) => {
  let storage: Storage;
  let query: TestStorage['query'];
  let dispose: () => Promise<void>;
  let userId: string;
  let discussionId: string;

  beforeAll(async () => {
    ({ storage, query, dispose } = await openTestStorage(dialect));
    userId = (await storage.users.create({ email: `q-${dialect}@example.com`, displayName: 'Q' })).id;
    discussionId = (await storage.discussions.create(userId, 'Queries')).id;
  });
  afterAll(async () => dispose());

  async function newQuery(runnerId = 'runner_a', createdAt = new Date(), inDiscussion = discussionId) {
    const id = newId('query');
    await storage.queries.create({
      id,
      userId,
      discussionId: inDiscussion,
      messageId: newId('message'),
      model: 'builtin',
      owner: 'token:tok_phone',
      runnerId,
      createdAt,
    });
    return id;
  }

  it('keeps a query and its events, in order, and ends it once', async () => {
    const id = await newQuery();
    const other = await newQuery();
    expect(await storage.queries.get(id)).toMatchObject({
      id,
      userId,
      discussionId,
      status: 'running',
      owner: 'token:tok_phone',
      endedAt: null,
      lastEventId: 0,
    });
    // More events than one INSERT carries, for two queries in one batch.
    const many = Array.from({ length: 1203 }, (_, i) => ({ queryId: id, event: delta(i + 1) }));
    await storage.queries.appendEvents([...many, { queryId: other, event: delta(1) }]);
    const terminal: QueryEvent = { type: 'query.incomplete', reason: 'cancelled', sequence_number: 1204 };
    await storage.queries.appendEvents([{ queryId: id, event: terminal }]);
    const endedAt = new Date();
    expect(await storage.queries.end(id, 'incomplete', endedAt)).toBe(true);
    expect(await storage.queries.end(id, 'failed', new Date())).toBe(false);

    const stored = await storage.queries.get(id);
    expect(stored).toMatchObject({ status: 'incomplete', lastEventId: 1204 });
    expect(stored?.endedAt?.getTime()).toBe(endedAt.getTime());
    const after1200 = await storage.queries.events(id, 1200);
    expect(after1200).toEqual([delta(1201), delta(1202), delta(1203), terminal]);
    expect((await storage.queries.events(id, 0)).map((e) => e.sequence_number)).toEqual(
      Array.from({ length: 1204 }, (_, i) => i + 1),
    );
    expect(await storage.queries.events(other, 0)).toEqual([delta(1)]);
    expect(await storage.queries.get(newId('query'))).toBeNull();
  });

  it('appends events and then ends queries in one call; a query that has ended already stays as it was', async () => {
    const id = await newQuery();
    const other = await newQuery();
    // More events than one INSERT carries: the ends come after the last slice.
    const events = Array.from({ length: 601 }, (_, i) => ({ queryId: id, event: delta(i + 1) }));
    const terminal: QueryEvent = { type: 'query.incomplete', reason: 'cancelled', sequence_number: 602 };
    const endedAt = new Date(Date.now() - 1_000);
    await storage.queries.appendEvents(
      [...events, { queryId: id, event: terminal }],
      [{ queryId: id, status: 'incomplete', endedAt }],
    );
    const stored = await storage.queries.get(id);
    expect(stored).toMatchObject({ status: 'incomplete', lastEventId: 602 });
    expect(stored?.endedAt?.getTime()).toBe(endedAt.getTime());

    await storage.queries.appendEvents(
      [{ queryId: other, event: delta(1) }],
      [
        { queryId: other, status: 'completed', endedAt },
        { queryId: id, status: 'failed', endedAt: new Date() },
      ],
    );
    expect(await storage.queries.get(other)).toMatchObject({ status: 'completed', lastEventId: 1 });
    expect((await storage.queries.get(id))?.endedAt?.getTime()).toBe(endedAt.getTime());
    expect(await storage.queries.get(id)).toMatchObject({ status: 'incomplete' });
  });

  it("stores an event's JSON as its caller made it (the stream's frame): it is not made again", async () => {
    const id = await newQuery();
    const framed = { ...delta(1), delta: 'as framed' };
    await storage.queries.appendEvents([{ queryId: id, event: delta(1), json: JSON.stringify(framed) }]);
    expect(await storage.queries.events(id, 0)).toEqual([framed]);
  });

  it('tells orphans (no heartbeat for a while) from queries whose process lives, and lets one sweeper claim each', async () => {
    const t0 = new Date(Date.now() - 120_000);
    const staleBefore = new Date(t0.getTime() + 60_000);
    const alive = await newQuery('runner_alive', t0);
    const dead = await newQuery('runner_dead', t0);
    const neverBeat = await newQuery('runner_never', t0);
    const young = await newQuery('runner_never', new Date(staleBefore.getTime() + 1));
    const finished = await newQuery('runner_dead', t0);
    await storage.queries.end(finished, 'completed', t0);
    await storage.queries.heartbeat('runner_dead', new Date(t0.getTime() + 1_000));
    await storage.queries.heartbeat('runner_alive', new Date(t0.getTime() + 30_000));
    // The latest heartbeat of a process is the one that counts.
    await storage.queries.heartbeat('runner_alive', new Date(t0.getTime() + 90_000));

    const orphans = (await storage.queries.orphans(staleBefore)).map((q) => q.id);
    expect(orphans).toEqual(expect.arrayContaining([dead, neverBeat]));
    expect(orphans).not.toContain(alive);
    // Younger than the staleness: its process may not have beaten yet.
    expect(orphans).not.toContain(young);
    expect(orphans).not.toContain(finished);

    expect(await storage.queries.claim(dead, staleBefore, new Date())).toBe(true);
    expect(await storage.queries.claim(dead, staleBefore, new Date())).toBe(false);
    expect((await storage.queries.orphans(staleBefore)).map((q) => q.id)).not.toContain(dead);
    // A process that beats again before the claim keeps its run.
    await storage.queries.heartbeat('runner_never', new Date());
    expect(await storage.queries.claim(neverBeat, staleBefore, new Date())).toBe(false);
  });

  it("keeps a process's heartbeat in one row of its own: no query's row is written by it", async () => {
    const t0 = new Date(Date.now() - 120_000);
    const running = await newQuery('runner_busy', t0);
    const before = await rowOf(running);
    for (let beat = 1; beat <= 3; beat++)
      await storage.queries.heartbeat('runner_busy', new Date(t0.getTime() + beat * 5_000));

    expect(await rowOf(running)).toEqual(before);
    expect(await runnerRows('runner_busy')).toHaveLength(1);
    // A stopped process's row goes after a while; its runs stay orphans without it.
    await storage.queries.forgetRunners(new Date(t0.getTime() + 15_001));
    expect(await runnerRows('runner_busy')).toHaveLength(0);
    expect((await storage.queries.orphans(new Date(t0.getTime() + 60_000))).map((q) => q.id)).toContain(
      running,
    );
  });

  /** The first placeholder in the dialect's own form. */
  const first = dialect === 'sqlite' ? '?' : '$1';
  /** Everything stored of a query, as its row reads. */
  const rowOf = (queryId: string) => query(`SELECT * FROM queries WHERE id = ${first}`, [queryId]);
  const runnerRows = (runnerId: string) =>
    query(`SELECT id FROM query_runners WHERE id = ${first}`, [runnerId]);

  it('prunes the events of old finished queries down to the terminal one', async () => {
    const finished = await newQuery();
    const running = await newQuery();
    const terminal: QueryEvent = { type: 'query.incomplete', reason: 'cancelled', sequence_number: 3 };
    await storage.queries.appendEvents([
      { queryId: finished, event: delta(1) },
      { queryId: finished, event: delta(2) },
      { queryId: finished, event: terminal },
      { queryId: running, event: delta(1) },
    ]);
    await storage.queries.end(finished, 'incomplete', new Date());

    await storage.queries.pruneEvents(new Date(Date.now() - 60_000));
    expect(await storage.queries.events(finished, 0)).toHaveLength(3);

    await storage.queries.pruneEvents(new Date(Date.now() + 1_000));
    expect(await storage.queries.events(finished, 0)).toEqual([terminal]);
    expect(await storage.queries.get(finished)).toMatchObject({ lastEventId: 3 });
    expect(await storage.queries.events(running, 0)).toEqual([delta(1)]);
  });

  it('deletes the queries of a deleted discussion with their events', async () => {
    const doomed = (await storage.discussions.create(userId, 'Doomed')).id;
    const id = await newQuery('runner_a', new Date(), doomed);
    await storage.queries.appendEvents([{ queryId: id, event: delta(1) }]);
    await storage.discussions.delete(userId, doomed);
    expect(await storage.queries.get(id)).toBeNull();
    expect(await storage.queries.events(id, 0)).toEqual([]);
  });
});
