import { isTerminalEvent, type QueryEvent, type QueryEventBody } from '@assistant/contracts';
import type { EventToStore, QueriesRepository, SqlStatement, StoredQuery } from '@assistant/storage';
import { eventJson } from './event-json';
import {
  endStatusOf,
  type EndOptions,
  type NewQueryRecord,
  type OpenOptions,
  type QueryEventListener,
  type QueryEventLog,
  type QueryRecord,
} from '@assistant/server-kit';

export interface DurableQueryEventLogOptions {
  /**
   * How long an event that must outlive a crash (see `WRITTEN_AT_THE_END`) may wait in memory before it is
   * written, with the events of its query before it.
   */
  flushDelayMs?: number;
  /** How often the stream of a query that this process does not hold looks for new events in the database. */
  pollMs?: number;
  /**
   * How often the stream of a query that another process runs asks the live log whether it still vouches for it
   * (the runner lives, the copy is whole); when it stops, the rest of the stream comes from the database.
   */
  superviseMs?: number;
  /** Told about writes and reads that failed; the live stream carries on without them. */
  onError(error: unknown, what: string): void;
}

/**
 * How many events wait for the database at most while it cannot be written to: a few minutes of a busy process's
 * streams; beyond, the oldest are dropped (the queries still end, their streams are only incomplete).
 */
const MAX_RETRIED_EVENTS = 100_000;

/**
 * The events a query writes only with its end (or with an event that is written earlier, in order): its start and
 * the text of its answer. A reader has them live; the database keeps a query's replay and its state after a crash.
 * A crash loses the text streamed so far of an unfinished answer — which is never stored as an answer anyway, and
 * is the same text the model would write again — while every tool call, confirmation asked and memory saved, the
 * things that happened, is written within `flushDelayMs`. So an answer costs the same row writes whatever its
 * length (issue 23): its row is written at its start, with its question, and at its end, with its answer.
 */
const WRITTEN_AT_THE_END: ReadonlySet<QueryEvent['type']> = new Set(['query.created', 'output_text.delta']);

interface PendingWrite extends EventToStore {
  /** When its query ended, for a terminal event. */
  at?: Date;
}

/**
 * A live query event log (in memory on a self-hosted server, Redis Streams on the hosted API) written behind to
 * the database, so that a query outlives its process: its status and events after a restart, and
 * `query.incomplete` (`interrupted`) for a run a crash cut short. The stream never waits for the database per event: a query's text is written with its end, its
 * other events (tool calls, confirmations, memories saved) in batches a short while after they happen (see
 * `WRITTEN_AT_THE_END`), each query's appended to its own row, and the terminal event is written (with everything
 * before it, and then the query's status) before anyone hears it. Queries that the live log does not hold — from before a restart, evicted after their
 * retention, or run by another process — are read from the database.
 *
 * A live copy of a query that another process runs is trusted only while the database does not hold its end and
 * the live log vouches for it (its runner lives: RunnerLiveness): after a crash, or a Redis outage that cost the
 * copy some writes, every instance reads the database, which holds what the runner, or recovery, stored last.
 */
export class DurableQueryEventLog implements QueryEventLog {
  /**
   * Events to write, by query, each query's oldest first; a terminal event carries when its query ended (`at`).
   * By query, so that a flush takes the due queries' events without walking every running query's text (500
   * streams of 100 tokens hold 50,000 events until their ends, and each end flushes).
   */
  private readonly pending = new Map<string, PendingWrite[]>();
  /** Batches whose write failed, oldest first, each to be written again on its own (see `retryLater`). */
  private readonly retrying: PendingWrite[][] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  /** Every write, chained: they reach the database in the order they were asked for, never two at once. */
  private writes: Promise<unknown> = Promise.resolve();
  /** Queries whose record could not be stored (see `open`): none of their events are written either. */
  private readonly unstored = new Set<string>();
  /** Queries whose terminal event is being written; nothing more may be appended to them. */
  private readonly ending = new Set<string>();
  /** The queries this process runs, until they end: the live log is the truth about them. */
  private readonly runningHere = new Set<string>();
  /** Queries with an event pending that is not written only at the end: the next flush writes theirs. */
  private readonly due = new Set<string>();
  private readonly flushDelayMs: number;
  private readonly pollMs: number;
  private readonly superviseMs: number;

  constructor(
    private readonly live: QueryEventLog,
    private readonly store: QueriesRepository,
    private readonly options: DurableQueryEventLogOptions,
  ) {
    this.flushDelayMs = options.flushDelayMs ?? 250;
    this.pollMs = options.pollMs ?? 1_000;
    this.superviseMs = options.superviseMs ?? 2_000;
  }

  /** The live log's: one process, one runner id, whichever log is asked. */
  get runnerId(): string {
    return this.live.runnerId;
  }

  /**
   * Opens the query in the live log at once — its run may start right away — and queues the database record
   * behind `options.storeAfter` (or waits for the caller's, `options.storedWith`). Every write goes through one queue, so the record still reaches the database
   * before any of the query's events, and `end` (which writes through the queue too) stores it before anyone
   * hears that the query has ended.
   */
  async open(record: NewQueryRecord, options: OpenOptions = {}): Promise<void> {
    await this.live.open(record);
    this.runningHere.add(record.id);
    const { storeAfter, storedWith } = options;
    this.write(async () => {
      try {
        await (storedWith ?? storeAfter);
      } catch {
        // The record, or what it refers to, was not stored (the query fails for it): nothing of it is stored.
        this.unstored.add(record.id);
        return;
      }
      if (!storedWith) await this.store.create({ ...record, runnerId: this.runnerId });
    }).catch((error: unknown) => {
      this.unstored.add(record.id);
      this.options.onError(error, 'could not store a query');
    });
  }

  append(queryId: string, body: QueryEventBody): QueryEvent {
    if (this.ending.has(queryId)) throw new Error(`query ${queryId} has already ended`);
    const event = this.live.append(queryId, body);
    // Its JSON is made already if a stream framed it (or Redis took it): the write stores that text.
    const entry = { queryId, event, json: eventJson(event) };
    const pending = this.pending.get(queryId);
    if (pending) pending.push(entry);
    else this.pending.set(queryId, [entry]);
    if (!WRITTEN_AT_THE_END.has(event.type)) {
      this.due.add(queryId);
      this.flushSoon();
    }
    return event;
  }

  /**
   * Stores the terminal event (with the query's events still pending, and its status, in one row write), then
   * ends the query live. With `options.storeWith` (its answer), that goes in the same commit, and a failure to
   * store them rejects, the query still running: the caller ends it otherwise. Without, a failure is told to
   * `onError`, and the query still ends live (after a restart it reads as interrupted).
   */
  async end(
    queryId: string,
    terminal: QueryEventBody,
    at = new Date(),
    options: EndOptions = {},
  ): Promise<QueryEvent | undefined> {
    if (this.ending.has(queryId)) return undefined;
    this.ending.add(queryId);
    /** The answer's commit failed: the query runs on here until the caller ends it otherwise. */
    let stillRunning = false;
    try {
      const record = await this.live.get(queryId);
      if (!record || record.endedAt) return undefined;
      const event = { ...terminal, sequence_number: record.lastEventId + 1 } as QueryEvent;
      if (options.storeWith) {
        stillRunning = true;
        await this.flush({ queryId, event, at, storeWith: options.storeWith });
        stillRunning = false;
      } else {
        try {
          await this.flush({ queryId, event, at });
        } catch (error) {
          this.options.onError(error, 'could not store the end of a query');
        }
      }
      return await this.live.end(queryId, terminal, at);
    } finally {
      this.ending.delete(queryId);
      if (!stillRunning) {
        this.runningHere.delete(queryId);
      }
    }
  }

  async get(queryId: string): Promise<QueryRecord | undefined> {
    return (await this.lookup(queryId))?.record;
  }

  async events(queryId: string, after = 0): Promise<readonly QueryEvent[]> {
    const found = await this.lookup(queryId);
    if (!found) return [];
    return found.from === 'live' ? this.live.events(queryId, after) : this.store.events(queryId, after);
  }

  async subscribe(queryId: string, after: number, listener: QueryEventListener): Promise<() => void> {
    const found = await this.lookup(queryId);
    if (!found) return () => undefined;
    if (found.from === 'store') return this.follow(queryId, after, listener, found.record.endedAt !== null);
    if (found.record.endedAt || this.runningHere.has(queryId)) {
      return this.live.subscribe(queryId, after, listener);
    }
    return this.supervise(queryId, after, listener);
  }

  endRecovered(queryId: string, after: number, events: readonly QueryEvent[], endedAt: Date): Promise<void> {
    return this.live.endRecovered(queryId, after, events, endedAt);
  }

  /** Stops the write-behind timer; the live log is closed by whoever made it. */
  close(): void {
    this.stopFlushTimer();
  }

  private stopFlushTimer(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
  }

  private flushSoon(): void {
    if (this.flushTimer) return;
    this.flushTimer = setTimeout(() => {
      this.flush().catch((error: unknown) => this.options.onError(error, 'could not store query events'));
    }, this.flushDelayMs);
    this.flushTimer.unref();
  }

  /**
   * Writes the pending events of the queries that are due (see `due`) and of the query that `terminal` ends —
   * each query's as one append to its row — and for the terminal event, in the same row write, the status it ends
   * its query in. The other queries' text waits for their end.
   * A batch that fails (the database restarting) is written again, before what came since but on its own (see
   * `retryLater`): writing a batch twice is harmless (appendEvents skips one stored already; `end` changes an
   * ended query no more), losing one would leave a hole in the stored stream, or a query "running" for ever.
   */
  private flush(terminal?: PendingWrite & { at: Date; storeWith?: readonly SqlStatement[] }): Promise<void> {
    this.stopFlushTimer();
    let batch = this.takeDue(terminal?.queryId);
    // A terminal event stored with its answer goes with its query's pending events in a commit of their own,
    // which is not written again when it fails: the caller ends the query otherwise.
    let final: PendingWrite[] | undefined;
    if (terminal?.storeWith) {
      final = batch.filter((e) => e.queryId === terminal.queryId);
      batch = batch.filter((e) => e.queryId !== terminal.queryId);
    } else if (terminal) {
      batch.push(terminal);
    }
    const batches = [...this.retrying.splice(0), ...(batch.length > 0 ? [batch] : [])];
    if (batches.length === 0 && !final) return Promise.resolve();
    return this.write(async () => {
      try {
        for (const [i, each] of batches.entries()) {
          try {
            await this.writeBatch(each);
          } catch (error) {
            this.retryLater(batches.slice(i));
            throw error;
          }
        }
        if (final && terminal) await this.writeBatch([...final, terminal], terminal.storeWith);
      } catch (error) {
        // The query's events go back, to be stored before whatever end it gets instead.
        if (final && terminal) {
          this.pending.set(terminal.queryId, final.concat(this.pending.get(terminal.queryId) ?? []));
        }
        throw error;
      }
    });
  }

  private async writeBatch(batch: readonly PendingWrite[], also?: readonly SqlStatement[]): Promise<void> {
    const stored = this.unstored.size > 0 ? batch.filter((e) => !this.unstored.has(e.queryId)) : batch;
    const ends = stored.flatMap(({ queryId, event, at }) =>
      at ? [{ queryId, status: endStatusOf(event), endedAt: at }] : [],
    );
    // The ends with the last events: a query's end is one row write, in one commit (with its answer).
    if (stored.length > 0) await this.store.appendEvents(stored, ends, also);
    for (const ended of batch) if (ended.at) this.unstored.delete(ended.queryId);
  }

  /** The pending events of the due queries and of `ending`, each query's in order; the others stay pending. */
  private takeDue(ending?: string): PendingWrite[] {
    if (ending !== undefined) this.due.add(ending);
    if (this.due.size === 0) return [];
    const taken: PendingWrite[] = [];
    for (const queryId of this.due) {
      for (const entry of this.pending.get(queryId) ?? []) taken.push(entry);
      this.pending.delete(queryId);
    }
    this.due.clear();
    return taken;
  }

  /**
   * Keeps failed batches for the next flush, each on its own: a batch that the database did store although the
   * write failed is then skipped whole, and what came since is not skipped with it. Up to MAX_RETRIED_EVENTS in
   * all (a long outage); beyond, the oldest go.
   */
  private retryLater(batches: PendingWrite[][]): void {
    this.retrying.unshift(...batches);
    let held = this.retrying.reduce((sum, each) => sum + each.length, 0);
    let dropped = 0;
    while (held > MAX_RETRIED_EVENTS && this.retrying.length > 0) {
      const oldest = this.retrying.shift() as PendingWrite[];
      held -= oldest.length;
      dropped += oldest.length;
    }
    if (dropped > 0) {
      this.options.onError(new Error(`${dropped} query events dropped`), 'the database is away for too long');
    }
    this.flushSoon();
  }

  private write(task: () => Promise<unknown>): Promise<void> {
    const done = this.writes.then(task);
    this.writes = done.catch(() => undefined);
    return done.then(() => undefined);
  }

  /**
   * Where a query is read from. The live log, for a query this process runs, or one that has ended there; the
   * database, for one the live log does not hold (or no longer vouches for), or whose end only the database
   * holds (the live copy missed it); else the live log — another process runs the query, and the database is a
   * moment behind it.
   */
  private async lookup(
    queryId: string,
  ): Promise<{ record: QueryRecord; from: 'live' | 'store' } | undefined> {
    const live = await this.live.get(queryId);
    if (live && (live.endedAt || this.runningHere.has(queryId))) return { record: live, from: 'live' };
    let stored: StoredQuery | null;
    try {
      stored = await this.store.get(queryId);
    } catch (error) {
      if (!live) throw error;
      this.options.onError(error, 'could not read a query');
      return { record: live, from: 'live' };
    }
    if (stored && (stored.endedAt || !live)) return { record: recordOf(stored), from: 'store' };
    return live && { record: live, from: 'live' };
  }

  /**
   * The live stream of a query that another process runs, watched every `superviseMs`: once the live log stops
   * vouching for it (its runner is gone, its copy was lost or Redis is away), the rest comes from the database,
   * after the last event delivered, up to the end that the runner or recovery stores there.
   */
  private async supervise(queryId: string, after: number, listener: QueryEventListener): Promise<() => void> {
    let last = after;
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    let stopSource: () => void = () => undefined;
    const stop = () => {
      stopped = true;
      clearTimeout(timer);
      stopSource();
    };
    const deliver = (event: QueryEvent) => {
      // A source switched in mid-stream may repeat what the previous one gave.
      if (stopped || event.sequence_number <= last) return;
      last = event.sequence_number;
      listener(event);
      if (isTerminalEvent(event)) stop();
    };
    const attach = async (source: Promise<() => void>) => {
      const unsubscribe = await source;
      if (stopped) unsubscribe();
      else stopSource = unsubscribe;
    };
    const watch = () => {
      timer = setTimeout(() => {
        this.live
          .get(queryId)
          .then(async (record) => {
            if (stopped) return;
            if (record) return watch();
            stopSource();
            await attach(this.follow(queryId, last, deliver, false));
          })
          .catch((error: unknown) => {
            this.options.onError(error, 'could not watch a query of another process');
            if (!stopped) watch();
          });
      }, this.superviseMs);
      timer.unref();
    };
    await attach(this.live.subscribe(queryId, after, deliver));
    if (!stopped) watch();
    return stop;
  }

  /**
   * The stream of a query read from the database: its stored events, then, while it has not ended (another
   * process runs it), whatever else is stored, looked for every `pollMs`.
   */
  private async follow(
    queryId: string,
    after: number,
    listener: QueryEventListener,
    ended: boolean,
  ): Promise<() => void> {
    let last = after;
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    const deliver = async () => {
      for (const event of await this.store.events(queryId, last)) {
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
    if (!done && !ended) poll();
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
    owner: stored.owner,
    status: stored.status,
    createdAt: stored.createdAt,
    endedAt: stored.endedAt,
    lastEventId: stored.lastEventId,
  };
}
