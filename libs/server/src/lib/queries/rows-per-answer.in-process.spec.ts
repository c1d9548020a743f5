/**
 * What a query costs the database (issue 23): the rows it writes are the same whatever the length of its answer —
 * the question, the query's record, its answer, and its events in one row — and at most 6 when the question
 * opens a discussion. Every row written is counted by triggers on every table, whichever code writes it.
 */
import type { QueryEvent } from '@assistant/contracts';
import { watchRowWrites, type RowWrites } from '@assistant/storage/testing';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';

/** Row writes per answered query that opens a discussion, at most (the target). */
const MAX_ROWS_PER_ANSWER = 6;
/**
 * The built-in model's pause between its tokens: the long answer streams for seconds, across many of the
 * write-behind's flush delays (250 ms), as a model's does — an instant answer would hide a write per flush.
 */
const PACING_MS = 10;

describe.each(['sqlite', 'postgres'] as const)('rows written per answered query on %s', (dialect) => {
  let api: InProcessApp;
  let writes: RowWrites;

  beforeAll(async () => {
    api = await startInProcessApp({ dialect, env: { ASSISTANT_BUILTIN_PACING_MS: String(PACING_MS) } });
    writes = await watchRowWrites(api.config.database);
  });
  afterAll(async () => {
    await writes?.close();
    await api?.close();
  });

  /** Asks, reads the stream to its end, and returns its events with the rows written meanwhile. */
  async function ask(body: Record<string, unknown>) {
    await writes.reset();
    const started = Date.now();
    const res = await api.inject({ method: 'POST', url: '/api/v1/queries', payload: body });
    const streamedMs = Date.now() - started;
    const events = res.payload
      .split('\n\n')
      .flatMap((block) => block.split('\n').filter((line) => line.startsWith('data: ')))
      .map((line) => JSON.parse(line.slice(6)) as QueryEvent);
    const created = events[0] as Extract<QueryEvent, { type: 'query.created' }>;
    const terminal = events.at(-1) as Extract<QueryEvent, { type: 'query.completed' }>;
    expect(terminal.type).toBe('query.completed');
    const counts = await writes.counts();
    // The bearer token's last use is the request's, not the answer's.
    delete counts['tokens'];
    const rows = Object.values(counts).reduce((sum, n) => sum + n, 0);
    const stored = await api.storage.queries.events(created.query_id, 0);
    const bytes = stored.reduce((sum, event) => sum + JSON.stringify(event).length + 1, 0);
    return { created, events, terminal, counts, rows, bytes, streamedMs };
  }

  it('writes the same rows for a short and a long answer, at most 6 when it opens a discussion', async () => {
    const short = await ask({ text: 'thanks' });
    const long = await ask({ text: 'help' });
    expect(long.events.length).toBeGreaterThan(short.events.length * 3);
    expect(long.streamedMs).toBeGreaterThan(1_000);
    // Every event is stored, and replays.
    expect(await api.storage.queries.events(long.created.query_id, 0)).toEqual(long.events);
    process.stdout.write(
      `${dialect}: short answer ${short.events.length} events, ${short.rows} rows ${JSON.stringify(short.counts)}, ${short.bytes} bytes of events; ` +
        `long answer ${long.events.length} events, ${long.rows} rows ${JSON.stringify(long.counts)}, ${long.bytes} bytes of events\n`,
    );
    expect(long.counts).toEqual(short.counts);
    expect(short.rows).toBeLessThanOrEqual(MAX_ROWS_PER_ANSWER);

    // A follow-up in the discussion: no discussion to create, the same count whatever its length.
    const again = await ask({ text: 'help', discussion_id: short.created.discussion_id });
    const brief = await ask({ text: 'thanks', discussion_id: short.created.discussion_id });
    expect(again.counts).toEqual(brief.counts);
    expect(again.rows).toBeLessThanOrEqual(MAX_ROWS_PER_ANSWER);
  });

  it('stores the answer and the end in one commit: when the answer cannot be stored, neither is, and the query fails', async () => {
    await writes.run(
      dialect === 'sqlite'
        ? `CREATE TRIGGER no_answers BEFORE INSERT ON messages WHEN NEW.role = 'assistant' BEGIN SELECT RAISE(ABORT, 'disk full'); END`
        : `CREATE FUNCTION no_answers() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.role = 'assistant' THEN RAISE EXCEPTION 'disk full'; END IF; RETURN NEW; END $$;
           CREATE TRIGGER no_answers BEFORE INSERT ON messages FOR EACH ROW EXECUTE FUNCTION no_answers()`,
    );
    try {
      const res = await api.inject({ method: 'POST', url: '/api/v1/queries', payload: { text: 'help' } });
      const events = res.payload
        .split('\n\n')
        .flatMap((block) => block.split('\n').filter((line) => line.startsWith('data: ')))
        .map((line) => JSON.parse(line.slice(6)) as QueryEvent);
      const created = events[0] as Extract<QueryEvent, { type: 'query.created' }>;
      expect(events.at(-1)).toMatchObject({
        type: 'query.failed',
        error: { detail: 'the answer could not be stored' },
      });
      // Stored as it was streamed: every event once, in order, up to query.failed; no completed end, no answer.
      expect(await api.storage.queries.events(created.query_id, 0)).toEqual(events);
      expect(await api.storage.queries.get(created.query_id)).toMatchObject({ status: 'failed' });
      const messages = await api.storage.discussions.recentMessages(api.userId, created.discussion_id, 10);
      expect(messages.map((m) => m.role)).toEqual(['user']);
    } finally {
      await writes.run(
        dialect === 'sqlite'
          ? 'DROP TRIGGER no_answers'
          : 'DROP TRIGGER no_answers ON messages; DROP FUNCTION no_answers()',
      );
    }
  });
});
