import { setImmediate } from 'node:timers/promises';
import { TERMINAL_EVENT_TYPES, type QueryEvent, type QueryStatus } from '@assistant/contracts';
import type { QueryEntity } from '../entities/query.entity';
import { idsBefore } from '../ids';
import type { Sql, SqlStatement } from '../sql';
import { QUERY_COLUMNS, queryFromRow } from '../rows';

export interface NewQuery {
  id: string;
  userId: string;
  discussionId: string;
  messageId: string;
  model: string;
  /** The principal that started it (a token, or an OAuth grant): whose its events and confirmations are. */
  owner: string;
  /** The process that runs it; see `heartbeat`. */
  runnerId: string;
  createdAt: Date;
}

/** A query with the number of its last stored event. */
export type StoredQuery = QueryEntity & { lastEventId: number };

type Row = Record<string, unknown>;

/**
 * Rows per INSERT. SQLite writes on the event loop's thread: a batch of thousands of events (many streams at
 * once) goes in slices of about a millisecond each, with other work let in between. Each INSERT is a commit,
 * which writes every page it touched to the WAL; the events of many streams touch a page of the key's index per
 * stream, so bigger slices write less per event: measured with the events of 50 streams, 500 rows per INSERT cost
 * ~2.1 µs of CPU and ~1.4 KB of WAL per event (about a millisecond per slice), 100 rows ~3.6 µs and ~3.6 KB.
 */
const EVENTS_PER_STATEMENT = 500;

/** An event to store; `json` is its JSON text when the caller has made it already (its stream frame did). */
export interface EventToStore {
  queryId: string;
  event: QueryEvent;
  json?: string;
}

/** A query that ended, to mark so (see `QueriesRepository.appendEvents`). */
export interface QueryEnd {
  queryId: string;
  status: QueryStatus;
  endedAt: Date;
}

/** Marks a query ended with its status and time; one that has ended already stays as it is. */
const END_QUERY = `UPDATE queries SET status = ?, ended_at = ? WHERE id = ? AND ended_at IS NULL`;

const TERMINAL_TYPES = TERMINAL_EVENT_TYPES.map((type) => `'${type}'`).join(', ');

/**
 * Where a query's status and events are kept (SPEC §4). Plain SQL throughout: events are written in batches
 * on the query path, and nothing here needs a transaction (SQLite's single TypeORM connection would interleave
 * concurrent TypeORM ones; a commit shared only to write less goes through `Sql.writeInOrder`). Writes are
 * ordered instead, so that a crash between two of them leaves a state the orphan sweep can finish: events before
 * the status that ends them.
 */
export class QueriesRepository {
  constructor(private readonly sql: Sql) {}

  /** Stores a query that starts running; its heartbeat starts at its creation. */
  async create(query: NewQuery): Promise<void> {
    const created = this.sql.time(query.createdAt);
    await this.sql.query(
      `INSERT INTO queries (id, user_id, discussion_id, message_id, model, status, owner, runner_id, created_at, heartbeat_at)
       VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?)`,
      [
        query.id,
        query.userId,
        query.discussionId,
        query.messageId,
        query.model,
        query.owner,
        query.runnerId,
        created,
        created,
      ],
    );
  }

  /**
   * Appends events of any queries, each under its own sequence number (one stored already is skipped), then
   * marks `ends` ended as `end` does. The last slice of events and the ends go in one commit on SQLite (see
   * `Sql.writeInOrder`): a query's end is then a single commit. Events always precede the status that ends them,
   * so a crash between two writes leaves a state the orphan sweep can finish.
   */
  async appendEvents(events: ReadonlyArray<EventToStore>, ends: ReadonlyArray<QueryEnd> = []): Promise<void> {
    const slices: SqlStatement[] = [];
    for (let start = 0; start < events.length; start += EVENTS_PER_STATEMENT) {
      slices.push(insertEvents(events.slice(start, start + EVENTS_PER_STATEMENT)));
    }
    const last = slices.pop();
    for (const [i, slice] of slices.entries()) {
      if (i > 0) await setImmediate();
      await this.sql.query(slice.sql, slice.params);
    }
    if (slices.length > 0) await setImmediate();
    await this.sql.writeInOrder([
      ...(last ? [last] : []),
      ...ends.map((end) => ({
        sql: END_QUERY,
        params: [end.status, this.sql.time(end.endedAt), end.queryId],
      })),
    ]);
  }

  /** Marks the query ended; false if it had already ended (then nothing changes). */
  async end(queryId: string, status: QueryStatus, endedAt: Date): Promise<boolean> {
    const changed = await this.sql.execute(END_QUERY, [status, this.sql.time(endedAt), queryId]);
    return changed > 0;
  }

  async get(queryId: string): Promise<StoredQuery | null> {
    const row = await this.sql.one<Row>(
      `SELECT ${QUERY_COLUMNS}, (SELECT MAX(sequence_number) FROM query_events WHERE query_id = queries.id) AS last_event_id
       FROM queries WHERE id = ?`,
      [queryId],
    );
    return row && { ...queryFromRow(row), lastEventId: Number(row.last_event_id ?? 0) };
  }

  /** The stored events after `after`, in order. */
  async events(queryId: string, after: number): Promise<QueryEvent[]> {
    const rows = await this.sql.query<Row>(
      `SELECT data FROM query_events WHERE query_id = ? AND sequence_number > ? ORDER BY sequence_number`,
      [queryId, after],
    );
    return rows.map((row) => JSON.parse(String(row.data)) as QueryEvent);
  }

  /** Renews the heartbeat of every unfinished query that `runnerId` runs: they are not orphans. */
  async heartbeat(runnerId: string, at: Date): Promise<void> {
    await this.sql.query(`UPDATE queries SET heartbeat_at = ? WHERE runner_id = ? AND ended_at IS NULL`, [
      this.sql.time(at),
      runnerId,
    ]);
  }

  /** Unfinished queries whose heartbeat is older than `staleBefore`: their process has died. */
  async orphans(staleBefore: Date): Promise<StoredQuery[]> {
    const ids = await this.sql.query<Row>(
      `SELECT id FROM queries WHERE ended_at IS NULL AND heartbeat_at < ? ORDER BY id`,
      [this.sql.time(staleBefore)],
    );
    const found = await Promise.all(ids.map((row) => this.get(String(row.id))));
    return found.filter((query): query is StoredQuery => query !== null);
  }

  /**
   * Takes an orphan over by renewing its heartbeat, if it is still an orphan: of several processes sweeping at
   * once, exactly one gets true.
   */
  async claim(queryId: string, staleBefore: Date, at: Date): Promise<boolean> {
    const changed = await this.sql.execute(
      `UPDATE queries SET heartbeat_at = ? WHERE id = ? AND ended_at IS NULL AND heartbeat_at < ?`,
      [this.sql.time(at), queryId, this.sql.time(staleBefore)],
    );
    return changed > 0;
  }

  /**
   * Deletes the events of finished queries started before `startedBefore`, except the terminal one: the query
   * still tells how it ended (with the whole answer), and a stream of it still ends properly. Query ids sort by
   * creation time, so the age test is a range on the primary key.
   */
  async pruneEvents(startedBefore: Date): Promise<void> {
    const bound = idsBefore('query', startedBefore);
    await this.sql.query(
      `DELETE FROM query_events WHERE query_id < ? AND type NOT IN (${TERMINAL_TYPES})
       AND query_id IN (SELECT id FROM queries WHERE id < ? AND ended_at IS NOT NULL)`,
      [bound, bound],
    );
  }
}

/** One INSERT of a slice of events. */
function insertEvents(events: ReadonlyArray<EventToStore>): SqlStatement {
  return {
    // A batch written again after a failure that was not one (the database had stored it) changes nothing.
    sql: `INSERT INTO query_events (query_id, sequence_number, type, data) VALUES ${events.map(() => '(?, ?, ?, ?)').join(', ')} ON CONFLICT DO NOTHING`,
    params: events.flatMap(({ queryId, event, json }) => [
      queryId,
      event.sequence_number,
      event.type,
      json ?? JSON.stringify(event),
    ]),
  };
}
