import { randomBytes } from 'node:crypto';
import {
  isTerminalEvent,
  type QueryEvent,
  type QueryEventBody,
  type QueryStatus,
} from '@assistant/contracts';

export interface QueryRecord {
  id: string;
  userId: string;
  discussionId: string;
  messageId: string;
  model: string;
  /** The principal that started it (queryOwnerOf); empty for a query from before owners were kept. */
  owner: string;
  status: QueryStatus;
  createdAt: Date;
  endedAt: Date | null;
  /** The number of the query's last event; 0 before the first. */
  lastEventId: number;
}

export type NewQueryRecord = Omit<QueryRecord, 'status' | 'endedAt' | 'lastEventId'>;

export type QueryEventListener = (event: QueryEvent) => void;

export interface EndOptions {
  /**
   * Writes to store in the commit that stores the end (a completed query's answer: DiscussionsRepository's
   * `appendMessageStatements`). Only a log that writes to the database takes them (DurableQueryEventLog, which
   * the queries module always uses); it rejects, and does not end the query, when they could not be stored.
   */
  storeWith?: ReadonlyArray<{ sql: string; params: unknown[] }>;
}

export interface OpenOptions {
  /** What the query's record refers to is stored once this settles (rejected: it never will be). */
  storeAfter?: PromiseLike<unknown>;
  /**
   * The caller stores the query's record itself, in the commit that settles this (its question's: one commit for
   * both); the log writes no record, and stores the query's events once it has settled — none if it rejects.
   */
  storedWith?: PromiseLike<unknown>;
}

/**
 * The per-query log of events (SPEC §4): the run appends, and the SSE responses, the resume endpoint and the
 * database read. The run never writes to a socket. Each deployment chooses where the live log is kept (memory
 * on one process; the hosted one will put it in Redis behind this interface), and the queries module writes
 * it behind to the database (DurableQueryEventLog), so that a query outlives its process.
 */
export interface QueryEventLog {
  /** This process as the runner of the queries it opens (QueryRecovery tells live runs from orphans by it). */
  readonly runnerId: string;
  /**
   * Registers a query that starts running; resolves once events may be appended. A log that also stores the
   * query elsewhere (DurableQueryEventLog) writes that copy once `options.storeAfter` has settled — what the record
   * refers to, a discussion still being created, exists then — and stores nothing of it if that rejects.
   */
  open(record: NewQueryRecord, options?: OpenOptions): Promise<void>;
  /**
   * Numbers an event of a running query (1, 2, 3… per query), keeps it and hands it to every subscriber at
   * once. Not the terminal event: that is `end`.
   */
  append(queryId: string, body: QueryEventBody): QueryEvent;
  /**
   * Appends the terminal event, which ends the query at `at`, once it is recorded: whoever hears the query has
   * ended finds it ended everywhere. Resolves to undefined if the query had already ended (or is unknown).
   */
  end(
    queryId: string,
    terminal: QueryEventBody,
    at?: Date,
    options?: EndOptions,
  ): Promise<QueryEvent | undefined>;
  get(queryId: string): Promise<QueryRecord | undefined>;
  /** The events after `after` (all of them by default), in order. */
  events(queryId: string, after?: number): Promise<readonly QueryEvent[]>;
  /**
   * Replays the events after `after`, then delivers new ones as they come, up to the terminal event; resolves
   * to the unsubscribe function.
   */
  subscribe(queryId: string, after: number, listener: QueryEventListener): Promise<() => void>;
  /**
   * Writes where this log's readers look the end that recovery gave a query whose runner is gone (QueryRecovery):
   * `events` are the stored ones after `after`, up to the terminal one, and the query ended at `endedAt`. A copy
   * that lacks events before them is dropped instead: its readers then read the database.
   */
  endRecovered(queryId: string, after: number, events: readonly QueryEvent[], endedAt: Date): Promise<void>;
  close(): void;
}

/** A new process's id as a runner (stored on its queries: at most 32 characters). */
export function newRunnerId(): string {
  return randomBytes(8).toString('hex');
}

const TERMINAL_STATUS: Record<string, QueryStatus> = {
  'query.completed': 'completed',
  'query.failed': 'failed',
  'query.incomplete': 'incomplete',
};

/** A running query waits for the user from a call's `awaiting_confirmation` until that call completes. */
export function statusAfter(status: QueryStatus, body: QueryEventBody): QueryStatus {
  if (body.type === 'tool_call.awaiting_confirmation') return 'awaiting_confirmation';
  if (status === 'awaiting_confirmation' && body.type === 'tool_call.completed') return 'running';
  return status;
}

/** The status a query ends in with this terminal event. */
export function endStatusOf(terminal: Pick<QueryEvent, 'type'>): QueryStatus {
  const status = TERMINAL_STATUS[terminal.type];
  if (!status) throw new Error(`${terminal.type} does not end a query`);
  return status;
}

interface Entry {
  record: QueryRecord;
  events: QueryEvent[];
  listeners: Set<QueryEventListener>;
}

/** The live log of one process: every query it runs, and each finished one for `retentionMs` more. */
export class MemoryQueryEventLog implements QueryEventLog {
  private readonly entries = new Map<string, Entry>();
  private readonly expiries = new Set<NodeJS.Timeout>();

  /** @param retentionMs how long a finished query stays replayable (SPEC §4: at least 15 minutes). */
  constructor(
    private readonly retentionMs = 15 * 60_000,
    readonly runnerId = newRunnerId(),
  ) {}

  async open(record: NewQueryRecord): Promise<void> {
    this.entries.set(record.id, {
      record: { ...record, status: 'running', endedAt: null, lastEventId: 0 },
      events: [],
      listeners: new Set(),
    });
  }

  append(queryId: string, body: QueryEventBody): QueryEvent {
    if (isTerminalEvent(body)) throw new Error(`end query ${queryId} with end(), not append()`);
    const entry = this.running(queryId);
    entry.record.status = statusAfter(entry.record.status, body);
    return this.push(entry, body);
  }

  async end(queryId: string, terminal: QueryEventBody, at = new Date()): Promise<QueryEvent | undefined> {
    const entry = this.entries.get(queryId);
    if (!entry || entry.record.endedAt) return undefined;
    entry.record.status = endStatusOf(terminal);
    entry.record.endedAt = at;
    const event = this.push(entry, terminal);
    entry.listeners.clear();
    this.expireLater(queryId);
    return event;
  }

  async get(queryId: string): Promise<QueryRecord | undefined> {
    return this.entries.get(queryId)?.record;
  }

  async events(queryId: string, after = 0): Promise<readonly QueryEvent[]> {
    return this.entries.get(queryId)?.events.slice(after) ?? [];
  }

  async subscribe(queryId: string, after: number, listener: QueryEventListener): Promise<() => void> {
    const entry = this.entries.get(queryId);
    if (!entry) return () => undefined;
    for (const event of entry.events.slice(after)) listener(event);
    if (entry.record.endedAt) return () => undefined;
    entry.listeners.add(listener);
    return () => entry.listeners.delete(listener);
  }

  /** One process holds every query it knows, and runs them itself: none of them has another runner to recover. */
  async endRecovered(): Promise<void> {
    // Nothing held of another process's queries.
  }

  close(): void {
    for (const timer of this.expiries) clearTimeout(timer);
    this.expiries.clear();
    this.entries.clear();
  }

  private running(queryId: string): Entry {
    const entry = this.entries.get(queryId);
    if (!entry) throw new Error(`no open query ${queryId}`);
    if (entry.record.endedAt) throw new Error(`query ${queryId} has already ended`);
    return entry;
  }

  private push(entry: Entry, body: QueryEventBody): QueryEvent {
    const event = { ...body, sequence_number: entry.events.length + 1 } as QueryEvent;
    entry.events.push(event);
    entry.record.lastEventId = event.sequence_number;
    for (const listener of entry.listeners) listener(event);
    return event;
  }

  private expireLater(queryId: string): void {
    const timer = setTimeout(() => {
      this.entries.delete(queryId);
      this.expiries.delete(timer);
    }, this.retentionMs);
    timer.unref();
    this.expiries.add(timer);
  }
}
