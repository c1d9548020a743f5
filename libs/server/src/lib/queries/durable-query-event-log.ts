import { isTerminalEvent, type QueryEvent, type QueryEventBody } from '@assistant/contracts';
import type { QueriesRepository, StoredQuery } from '@assistant/storage';
import {
  endStatusOf,
  type NewQueryRecord,
  type QueryEventListener,
  type QueryEventLog,
  type QueryRecord,
} from './query-event-log';

export interface DurableQueryEventLogOptions {
  /** This process, recorded on every query it runs: its heartbeat tells its runs from orphans (QueryRecovery). */
  runnerId: string;
  /** How long an event may wait in memory before it is written: a crash loses at most this much of a stream. */
  flushDelayMs?: number;
  /** How often the stream of a query that this process does not hold looks for new events in the database. */
  pollMs?: number;
  /** Told about writes and reads that failed; the live stream carries on without them. */
  onError(error: unknown, what: string): void;
}

/**
 * A live query event log (memory today, Redis later) written behind to the database, so that a query outlives
 * its process: its status and events after a restart, and `query.incomplete` (`interrupted`) for a run a crash
 * cut short. The stream never waits for the database per event: events are written in batches a short while
 * after they happen, and the terminal event is written (with everything before it, and then the query's status)
 * before anyone hears it. Queries that the live log does not hold — from before a restart, evicted after their
 * retention, or run by another process — are read from the database.
 */
export class DurableQueryEventLog implements QueryEventLog {
  private pending: Array<{ queryId: string; event: QueryEvent }> = [];
  private flushTimer: NodeJS.Timeout | undefined;
  /** Every write, chained: they reach the database in the order they were asked for, never two at once. */
  private writes: Promise<unknown> = Promise.resolve();
  /** Queries whose terminal event is being written; nothing more may be appended to them. */
  private readonly ending = new Set<string>();
  private readonly flushDelayMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly live: QueryEventLog,
    private readonly store: QueriesRepository,
    private readonly options: DurableQueryEventLogOptions,
  ) {
    this.flushDelayMs = options.flushDelayMs ?? 250;
    this.pollMs = options.pollMs ?? 1_000;
  }

  async open(record: NewQueryRecord): Promise<void> {
    await this.write(() => this.store.create({ ...record, runnerId: this.options.runnerId }));
    await this.live.open(record);
  }

  append(queryId: string, body: QueryEventBody): QueryEvent {
    if (this.ending.has(queryId)) throw new Error(`query ${queryId} has already ended`);
    const event = this.live.append(queryId, body);
    this.pending.push({ queryId, event });
    if (!this.flushTimer) {
      this.flushTimer = setTimeout(() => {
        this.flush().catch((error: unknown) => this.options.onError(error, 'could not store query events'));
      }, this.flushDelayMs);
      this.flushTimer.unref();
    }
    return event;
  }

  async end(queryId: string, terminal: QueryEventBody, at = new Date()): Promise<QueryEvent | undefined> {
    if (this.ending.has(queryId)) return undefined;
    this.ending.add(queryId);
    try {
      const record = await this.live.get(queryId);
      if (!record || record.endedAt) return undefined;
      const event = { ...terminal, sequence_number: record.lastEventId + 1 } as QueryEvent;
      try {
        await this.flush({ queryId, event, at });
      } catch (error) {
        // The answer still reaches its listeners; after a restart the query reads as interrupted.
        this.options.onError(error, 'could not store the end of a query');
      }
      return await this.live.end(queryId, terminal, at);
    } finally {
      this.ending.delete(queryId);
    }
  }

  async get(queryId: string): Promise<QueryRecord | undefined> {
    const live = await this.live.get(queryId);
    if (live) return live;
    const stored = await this.store.get(queryId);
    return stored ? recordOf(stored) : undefined;
  }

  async events(queryId: string, after = 0): Promise<readonly QueryEvent[]> {
    if (await this.live.get(queryId)) return this.live.events(queryId, after);
    return this.store.events(queryId, after);
  }

  async subscribe(queryId: string, after: number, listener: QueryEventListener): Promise<() => void> {
    if (await this.live.get(queryId)) return this.live.subscribe(queryId, after, listener);
    const stored = await this.store.get(queryId);
    if (!stored) return () => undefined;
    return this.follow(stored, after, listener);
  }

  /** Stops the write-behind timer; the live log is closed by whoever made it. */
  close(): void {
    this.stopFlushTimer();
  }

  private stopFlushTimer(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
  }

  /** Writes every pending event, and with a terminal event, then the status it ends its query in. */
  private flush(terminal?: { queryId: string; event: QueryEvent; at: Date }): Promise<void> {
    this.stopFlushTimer();
    const batch = this.pending.splice(0);
    if (terminal) batch.push(terminal);
    if (batch.length === 0) return Promise.resolve();
    return this.write(async () => {
      await this.store.appendEvents(batch);
      if (terminal) await this.store.end(terminal.queryId, endStatusOf(terminal.event), terminal.at);
    });
  }

  private write(task: () => Promise<unknown>): Promise<void> {
    const done = this.writes.then(task);
    this.writes = done.catch(() => undefined);
    return done.then(() => undefined);
  }

  /**
   * The stream of a query held only in the database: its stored events, then, while it has not ended (another
   * process runs it), whatever else is stored, looked for every `pollMs`.
   */
  private async follow(
    stored: StoredQuery,
    after: number,
    listener: QueryEventListener,
  ): Promise<() => void> {
    let last = after;
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    const deliver = async () => {
      for (const event of await this.store.events(stored.id, last)) {
        if (done) return;
        listener(event);
        last = event.sequence_number;
        if (isTerminalEvent(event)) done = true;
      }
    };
    const poll = () => {
      timer = setTimeout(() => {
        deliver()
          .catch((error: unknown) => this.options.onError(error, 'could not read query events'))
          .finally(() => {
            if (!done) poll();
          });
      }, this.pollMs);
      timer.unref();
    };
    await deliver();
    // An ended query has every event stored: its terminal one is written before its status.
    if (!done && !stored.endedAt) poll();
    return () => {
      done = true;
      clearTimeout(timer);
    };
  }
}

function recordOf(stored: StoredQuery): QueryRecord {
  return {
    id: stored.id,
    userId: stored.userId,
    discussionId: stored.discussionId,
    messageId: stored.messageId,
    model: stored.model,
    status: stored.status,
    createdAt: stored.createdAt,
    endedAt: stored.endedAt,
    lastEventId: stored.lastEventId,
  };
}
