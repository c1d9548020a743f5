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
  status: QueryStatus;
  createdAt: Date;
  endedAt: Date | null;
}

export type QueryEventListener = (event: QueryEvent) => void;

/**
 * The per-query log of events (SPEC §4): the run appends, and the SSE responses, the resume endpoint and
 * persistence read. The run never writes to a socket. Kept in memory on a self-hosted server; the hosted one
 * will put it in Redis behind this same interface.
 */
export interface QueryEventLog {
  open(record: Omit<QueryRecord, 'status' | 'endedAt'>): void;
  /** Numbers the event (1, 2, 3… per query), stores it and hands it to every subscriber at once. */
  append(queryId: string, body: QueryEventBody): QueryEvent;
  get(queryId: string): QueryRecord | undefined;
  events(queryId: string): readonly QueryEvent[];
  /** Replays the events after `after`, then delivers new ones as they come; returns the unsubscribe function. */
  subscribe(queryId: string, after: number, listener: QueryEventListener): () => void;
  close(): void;
}

const TERMINAL_STATUS: Record<string, QueryStatus> = {
  'query.completed': 'completed',
  'query.failed': 'failed',
  'query.incomplete': 'incomplete',
};

interface Entry {
  record: QueryRecord;
  events: QueryEvent[];
  listeners: Set<QueryEventListener>;
}

export class MemoryQueryEventLog implements QueryEventLog {
  private readonly entries = new Map<string, Entry>();
  private readonly expiries = new Set<NodeJS.Timeout>();

  /** @param retentionMs how long a finished query stays replayable (SPEC §4: at least 15 minutes). */
  constructor(private readonly retentionMs = 15 * 60_000) {}

  open(record: Omit<QueryRecord, 'status' | 'endedAt'>): void {
    this.entries.set(record.id, {
      record: { ...record, status: 'running', endedAt: null },
      events: [],
      listeners: new Set(),
    });
  }

  append(queryId: string, body: QueryEventBody): QueryEvent {
    const entry = this.entries.get(queryId);
    if (!entry) throw new Error(`no open query ${queryId}`);
    if (entry.record.endedAt) throw new Error(`query ${queryId} has already ended`);
    const event = { ...body, sequence_number: entry.events.length + 1 } as QueryEvent;
    entry.events.push(event);
    if (isTerminalEvent(event)) {
      entry.record.status = TERMINAL_STATUS[event.type];
      entry.record.endedAt = new Date();
      this.expireLater(queryId);
    }
    for (const listener of entry.listeners) listener(event);
    if (isTerminalEvent(event)) entry.listeners.clear();
    return event;
  }

  get(queryId: string): QueryRecord | undefined {
    return this.entries.get(queryId)?.record;
  }

  events(queryId: string): readonly QueryEvent[] {
    return this.entries.get(queryId)?.events ?? [];
  }

  subscribe(queryId: string, after: number, listener: QueryEventListener): () => void {
    const entry = this.entries.get(queryId);
    if (!entry) return () => undefined;
    for (const event of entry.events.slice(after)) listener(event);
    if (entry.record.endedAt) return () => undefined;
    entry.listeners.add(listener);
    return () => entry.listeners.delete(listener);
  }

  close(): void {
    for (const timer of this.expiries) clearTimeout(timer);
    this.expiries.clear();
    this.entries.clear();
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
