import { isTerminalEvent, type QueryEvent, type QueryEventBody } from '@assistant/contracts';
import {
  endStatusOf,
  newRunnerId,
  statusAfter,
  type NewQueryRecord,
  type QueryEventListener,
  type QueryEventLog,
  type QueryRecord,
} from '@assistant/server-kit';

interface Entry {
  record: QueryRecord;
  events: QueryEvent[];
  listeners: Set<QueryEventListener>;
}

/**
 * How long a process keeps a query in memory after its end: long enough for a stream that is just attaching, or
 * reconnecting after a blip, to be served from here. A finished query stays replayable for longer (SPEC §4: at
 * least 15 minutes) from the log under this one — the database, which stores a query's events with its end
 * (DurableQueryEventLog), or Redis on the hosted API. Kept for 15 minutes here too, every answer's events would
 * hold the heap for as long (~34 KB for 100 tokens: 30 MB at one query a second), for readers that rarely come.
 */
export const ENDED_QUERY_KEPT_MS = 30_000;

/** The live log of one process: every query it runs, and each finished one for `retentionMs` more. */
export class MemoryQueryEventLog implements QueryEventLog {
  private readonly entries = new Map<string, Entry>();
  private readonly expiries = new Set<NodeJS.Timeout>();

  /** @param retentionMs how long a finished query stays in memory (see ENDED_QUERY_KEPT_MS). */
  constructor(
    private readonly retentionMs = ENDED_QUERY_KEPT_MS,
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
