import { randomBytes } from 'node:crypto';
import type { QueryEvent, QueryEventBody, QueryStatus } from '@assistant/contracts';

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
 * on one process; Redis on the hosted service, in @assistant/hosted), and the queries module writes
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
