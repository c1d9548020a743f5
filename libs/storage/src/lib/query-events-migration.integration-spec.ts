import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import type { QueryEvent } from '@assistant/contracts';
import { openDatabase, type Storage } from './storage';
import { testPostgresConfig, dropTestSchema } from './testing';
import { newId } from './ids';

/**
 * The move of query events from a row each (`query_events`) into their query's row: what was stored before
 * replays the same after, a query trimmed to its terminal event included, and the migration can be undone.
 */
describe.each(['sqlite', 'postgres'] as const)('query events moved into their query on %s', (dialect) => {
  let storage: Storage;
  let dataSource: DataSource;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    if (dialect === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'assistant-migration-'));
      ({ storage, dataSource } = await openDatabase(
        { dialect, file: join(dir, 'test.sqlite') },
        { migrations: 'run' },
      ));
      dispose = async () => {
        await storage.close();
        rmSync(dir, { recursive: true, force: true });
      };
    } else {
      const { config, schema } = testPostgresConfig();
      ({ storage, dataSource } = await openDatabase(config, { migrations: 'run' }));
      dispose = async () => {
        await storage.close();
        await dropTestSchema(schema);
      };
    }
  });
  afterAll(() => dispose());

  const numbered = (text: string) => {
    let n = 0;
    return dialect === 'postgres' ? text.replace(/\?/g, () => `$${++n}`) : text;
  };

  /** Undoes the migrations after this one, then this one: the schema of before it. */
  const undoThroughIt = async () => {
    const thisOne = `QueryEventsOneRow${dialect === 'sqlite' ? 'Sqlite' : 'Postgres'}1796100000000`;
    for (;;) {
      const [last] = (await dataSource.query(
        `SELECT name FROM migrations ORDER BY timestamp DESC LIMIT 1`,
      )) as Array<{
        name: string;
      }>;
      await dataSource.undoLastMigration({ transaction: 'each' });
      if (last.name === thisOne) return;
    }
  };

  it('replays every query stored before it exactly, and gives them back when undone', async () => {
    const user = await storage.users.create({ email: `m-${dialect}@example.com`, displayName: 'M' });
    const discussion = await storage.discussions.create(user.id, 'Before');
    const newQuery = async () => {
      const id = newId('query');
      await storage.queries.create({
        id,
        userId: user.id,
        discussionId: discussion.id,
        messageId: newId('message'),
        model: 'builtin',
        owner: '',
        runnerId: 'runner_old',
        createdAt: new Date(),
      });
      return id;
    };
    const whole = await newQuery();
    const trimmed = await newQuery();
    const none = await newQuery();

    // Back to the schema of before, and events stored as it stored them: out of order, and one query trimmed.
    await undoThroughIt();
    const events: QueryEvent[] = [
      {
        type: 'query.created',
        query_id: whole,
        discussion_id: discussion.id,
        message_id: 'm',
        model: 'builtin',
        sequence_number: 1,
      },
      ...Array.from({ length: 12 }, (_, i) => ({
        type: 'output_text.delta' as const,
        delta: `w${i}\n"é" `,
        sequence_number: i + 2,
      })),
      { type: 'query.incomplete', reason: 'cancelled', sequence_number: 14 },
    ];
    for (const event of [...events].reverse()) {
      await dataSource.query(
        numbered(`INSERT INTO query_events (query_id, sequence_number, type, data) VALUES (?, ?, ?, ?)`),
        [whole, event.sequence_number, event.type, JSON.stringify(event)],
      );
    }
    const terminal: QueryEvent = { type: 'query.incomplete', reason: 'interrupted', sequence_number: 40 };
    await dataSource.query(
      numbered(`INSERT INTO query_events (query_id, sequence_number, type, data) VALUES (?, ?, ?, ?)`),
      [trimmed, 40, terminal.type, JSON.stringify(terminal)],
    );

    await dataSource.runMigrations({ transaction: 'each' });
    expect(await storage.queries.events(whole, 0)).toEqual(events);
    expect(await storage.queries.events(whole, 12)).toEqual(events.slice(12));
    expect(await storage.queries.get(whole)).toMatchObject({ lastEventId: 14 });
    expect(await storage.queries.events(trimmed, 0)).toEqual([terminal]);
    expect(await storage.queries.get(trimmed)).toMatchObject({ lastEventId: 40 });
    expect(await storage.queries.events(none, 0)).toEqual([]);
    expect(await storage.queries.get(none)).toMatchObject({ lastEventId: 0 });

    // Undone, a row per event again, in order.
    await undoThroughIt();
    const rows = (await dataSource.query(
      numbered(`SELECT data FROM query_events WHERE query_id = ? ORDER BY sequence_number`),
      [whole],
    )) as Array<{ data: string }>;
    expect(rows.map((row) => JSON.parse(row.data))).toEqual(events);
    await dataSource.runMigrations({ transaction: 'each' });
    expect(await storage.queries.events(whole, 0)).toEqual(events);
  });
});
