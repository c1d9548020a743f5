import type { QueryEvent, QueryStatus } from '@assistant/contracts';
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

/** A query with the number of its last stored event (its events themselves are read by `events`). */
export type StoredQuery = Omit<QueryEntity, 'events'>;

type Row = Record<string, unknown>;

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

/**
 * Appends a query's next events (their JSON lines) to its row, unless they are stored already: a batch written
 * again after a failure that was not one (the database had stored it) changes nothing. Parameters: the number of
 * the batch's first event, the lines, the number of its last, the query.
 */
const APPEND_EVENTS = `UPDATE queries SET
  events = CASE WHEN last_event_id < ? THEN events || ? ELSE events END,
  last_event_id = CASE WHEN last_event_id < ? THEN ? ELSE last_event_id END
  WHERE id = ?`;

/**
 * As APPEND_EVENTS, and marks the query ended as END_QUERY does, in the same row write. Parameters: those of
 * APPEND_EVENTS, then the status and the end time, then the query.
 */
const APPEND_AND_END = `UPDATE queries SET
  events = CASE WHEN last_event_id < ? THEN events || ? ELSE events END,
  last_event_id = CASE WHEN last_event_id < ? THEN ? ELSE last_event_id END,
  status = CASE WHEN ended_at IS NULL THEN ? ELSE status END,
  ended_at = COALESCE(ended_at, ?)
  WHERE id = ?`;

/**
 * The condition, on a row of `queries`, that its process has no heartbeat as recent as the parameter (a process
 * that never wrote one, a self-hosted one, or one forgotten, has none).
 */
const RUNNER_STALE = `NOT EXISTS (SELECT 1 FROM query_runners r WHERE r.id = queries.runner_id AND r.heartbeat_at >= ?)`;

/** Old finished queries whose events are more than their terminal one (a line break before the last line). */
const PRUNABLE = `SELECT id, events FROM queries WHERE id < ? AND ended_at IS NOT NULL AND events LIKE ? ORDER BY id LIMIT 200`;
const PRUNE_BATCH = 200;

/**
 * Where a query's status and events are kept (SPEC §4). A query's events are part of its row (`events`, one
 * JSON line each, and `last_event_id`): a query writes the same rows whatever the length of its answer, and a
 * replay reads one row. Plain SQL throughout: events are written in batches
 * on the query path, and nothing here needs a transaction (SQLite's single TypeORM connection would interleave
 * concurrent TypeORM ones; a commit shared only to write less goes through `Sql.writeInOrder`). Writes are
 * ordered instead, so that a crash between two of them leaves a state the orphan sweep can finish: events before
 * the status that ends them.
 */
export class QueriesRepository {
  constructor(private readonly sql: Sql) {}

  /** Stores a query that starts running; until its process's next heartbeat, its creation vouches for it. */
  async create(query: NewQuery): Promise<void> {
    const { sql, params } = this.createStatement(query);
    await this.sql.query(sql, params);
  }

  /**
   * The write that `create` makes, for a caller that stores the query in the same commit as something else (its
   * question: see `DiscussionsRepository.appendMessage`).
   */
  createStatement(query: NewQuery): SqlStatement {
    const created = this.sql.time(query.createdAt);
    return {
      sql: `INSERT INTO queries (id, user_id, discussion_id, message_id, model, status, owner, runner_id, created_at, heartbeat_at)
       VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?)`,
      params: [
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
    };
  }

  /**
   * Appends events of any queries, each after those of its query stored already (a batch stored already is
   * skipped), and marks `ends` ended as `end` does: one row write per query, its end in the same one, and every
   * write of the call in one transaction (see `Sql.writeInOrder`: one commit on SQLite, one round trip on
   * PostgreSQL), `also` (a query's answer) first. Events always precede the status that ends them, so a crash
   * between two writes leaves a state the orphan sweep can finish.
   */
  async appendEvents(
    events: ReadonlyArray<EventToStore>,
    ends: ReadonlyArray<QueryEnd> = [],
    also: readonly SqlStatement[] = [],
  ): Promise<void> {
    const byQuery = new Map<string, EventToStore[]>();
    for (const entry of events) {
      const list = byQuery.get(entry.queryId);
      if (list) list.push(entry);
      else byQuery.set(entry.queryId, [entry]);
    }
    const endOf = new Map(ends.map((end) => [end.queryId, end]));
    const statements: SqlStatement[] = [];
    for (const [queryId, list] of byQuery) {
      const first = list[0].event.sequence_number;
      const last = list[list.length - 1].event.sequence_number;
      const lines = list.map(({ event, json }) => `${json ?? JSON.stringify(event)}\n`).join('');
      const append = [first, lines, first, last];
      const end = endOf.get(queryId);
      endOf.delete(queryId);
      statements.push(
        end
          ? { sql: APPEND_AND_END, params: [...append, end.status, this.sql.time(end.endedAt), queryId] }
          : { sql: APPEND_EVENTS, params: [...append, queryId] },
      );
    }
    for (const end of endOf.values()) {
      statements.push({ sql: END_QUERY, params: [end.status, this.sql.time(end.endedAt), end.queryId] });
    }
    // `also` first, all or nothing with the rest (a query's answer with its end: whoever hears of the end can
    // read the answer, and there is no answer without it).
    if (also.length > 0) await this.sql.writeTogether([...also, ...statements]);
    else await this.sql.writeInOrder(statements);
  }

  /** Marks the query ended; false if it had already ended (then nothing changes). */
  async end(queryId: string, status: QueryStatus, endedAt: Date): Promise<boolean> {
    const changed = await this.sql.execute(END_QUERY, [status, this.sql.time(endedAt), queryId]);
    return changed > 0;
  }

  async get(queryId: string): Promise<StoredQuery | null> {
    const row = await this.sql.one<Row>(`SELECT ${QUERY_COLUMNS}, last_event_id FROM queries WHERE id = ?`, [
      queryId,
    ]);
    return row && { ...queryFromRow(row), lastEventId: Number(row.last_event_id ?? 0) };
  }

  /** The stored events after `after`, in order. */
  async events(queryId: string, after: number): Promise<QueryEvent[]> {
    const row = await this.sql.one<Row>(`SELECT events, last_event_id FROM queries WHERE id = ?`, [queryId]);
    if (!row || Number(row.last_event_id) <= after) return [];
    return eventsOf(String(row.events)).filter((event) => event.sequence_number > after);
  }

  /**
   * Renews the heartbeat of the process `runnerId`: the unfinished queries it runs are not orphans. One row per
   * process, not one per query: a query writes the same rows however long it runs.
   */
  async heartbeat(runnerId: string, at: Date): Promise<void> {
    await this.sql.query(
      `INSERT INTO query_runners (id, heartbeat_at) VALUES (?, ?)
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`,
      [runnerId, this.sql.time(at)],
    );
  }

  /**
   * Unfinished queries whose process has died: neither the query (created, or claimed by a sweeper) nor the
   * heartbeat of its process is as recent as `staleBefore`.
   */
  async orphans(staleBefore: Date): Promise<StoredQuery[]> {
    const stale = this.sql.time(staleBefore);
    const ids = await this.sql.query<Row>(
      `SELECT id FROM queries WHERE ended_at IS NULL AND heartbeat_at < ? AND ${RUNNER_STALE} ORDER BY id`,
      [stale, stale],
    );
    const found = await Promise.all(ids.map((row) => this.get(String(row.id))));
    return found.filter((query): query is StoredQuery => query !== null);
  }

  /**
   * Takes an orphan over by renewing its own heartbeat, if it is still an orphan: of several processes sweeping
   * at once, exactly one gets true. Should the claimer die before it ends the query, the query becomes an orphan
   * again once this heartbeat is stale.
   */
  async claim(queryId: string, staleBefore: Date, at: Date): Promise<boolean> {
    const stale = this.sql.time(staleBefore);
    const changed = await this.sql.execute(
      `UPDATE queries SET heartbeat_at = ? WHERE id = ? AND ended_at IS NULL AND heartbeat_at < ? AND ${RUNNER_STALE}`,
      [this.sql.time(at), queryId, stale, stale],
    );
    return changed > 0;
  }

  /**
   * Forgets processes whose heartbeat stopped before `before`: their unfinished queries, if any, are orphans
   * whether their heartbeat row is there or not.
   */
  async forgetRunners(before: Date): Promise<void> {
    await this.sql.query(`DELETE FROM query_runners WHERE heartbeat_at < ?`, [this.sql.time(before)]);
  }

  /**
   * Trims the events of finished queries started before `startedBefore` down to the terminal one: the query
   * still tells how it ended (with the whole answer), and a stream of it still ends properly. Query ids sort by
   * creation time, so the age test is a range on the primary key. A few hundred rows per commit.
   */
  async pruneEvents(startedBefore: Date): Promise<void> {
    const bound = idsBefore('query', startedBefore);
    for (;;) {
      const rows = await this.sql.query<Row>(PRUNABLE, [bound, '%\n_%']);
      if (rows.length === 0) return;
      await this.sql.writeInOrder(
        rows.map((row) => ({
          sql: `UPDATE queries SET events = ? WHERE id = ?`,
          params: [lastLineOf(String(row.events)), row.id],
        })),
      );
      if (rows.length < PRUNE_BATCH) return;
    }
  }
}

/** The events of a query's `events` text, in order. */
function eventsOf(text: string): QueryEvent[] {
  const events: QueryEvent[] = [];
  let start = 0;
  for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
    events.push(JSON.parse(text.slice(start, end)) as QueryEvent);
    start = end + 1;
  }
  return events;
}

/** The last line of a query's `events` text, with its line break: its terminal event. */
function lastLineOf(text: string): string {
  return text.slice(text.lastIndexOf('\n', text.length - 2) + 1);
}
