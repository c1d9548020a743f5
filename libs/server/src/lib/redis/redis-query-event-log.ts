import type { ChainableCommander } from 'ioredis';
import {
  isTerminalEvent,
  type QueryEvent,
  type QueryEventBody,
  type QueryStatus,
} from '@assistant/contracts';
import {
  endStatusOf,
  MemoryQueryEventLog,
  statusAfter,
  type NewQueryRecord,
  type QueryEventListener,
  type QueryEventLog,
  type QueryRecord,
} from '../queries/query-event-log';
import { redisUnavailable, type RedisConnections } from './redis-connections';
import { RedisStreamFollower } from './redis-stream-follower';
import { EVENT_FIELD, eventsOfEntries, streamId, type StreamEntry } from './redis-query-keys';
import { eventJson } from '../queries/event-json';

/** SPEC §4: a finished query stays replayable for at least 15 minutes. */
const RETENTION_SECONDS = 15 * 60;
/**
 * How long this process keeps a query it ran in memory after its end: long enough for a stream that is just
 * attaching; later readers read Redis like every other instance.
 */
const LOCAL_RETENTION_MS = 30_000;

export interface RedisQueryEventLogOptions {
  /**
   * How long a running query's record and stream live in Redis without an end: longer than any run can last, so
   * that those of a process that crashed mid-run go away on their own.
   */
  runningTtlSeconds: number;
  onError(error: unknown, what: string): void;
}

interface PendingWrites {
  /** Each event's sequence number and JSON text. */
  events: Array<{ sequenceNumber: number; json: string }>;
  status: QueryStatus;
}

/**
 * The hosted service's live query event log, shared by every instance through Redis: a hash per query (its
 * record) and a stream of its events (entry id `0-<sequence number>`).
 *
 * The process that runs a query keeps it in memory too (a MemoryQueryEventLog) and delivers each event to its
 * own streams at once; the events reach Redis a tick later, every event of that tick in one pipeline, in order
 * on one connection, so that a token costs no Redis round trip of its own. The terminal event and the ended
 * status are written together (MULTI) before anyone hears them, then both keys expire after the retention.
 *
 * Any other instance reads the record and the stream from Redis: a resumed stream replays the events after the
 * client's Last-Event-ID (XRANGE), then follows new ones with the process's one blocking reader.
 */
export class RedisQueryEventLog implements QueryEventLog {
  private readonly local = new MemoryQueryEventLog(LOCAL_RETENTION_MS);
  private readonly follower: RedisStreamFollower;
  private pending = new Map<string, PendingWrites>();
  /** The status of each query this process runs, as its events change it (awaiting a confirmation or not). */
  private readonly statuses = new Map<string, QueryStatus>();
  /**
   * Queries whose event stream has its running TTL in Redis: given once, with the stream's first events, not with
   * every tick's (a third of the commands a token cost).
   */
  private readonly streamsWithTtl = new Set<string>();
  private flushScheduled = false;
  /** Whether the last write failed, so that an outage is logged once, not once per tick. */
  private failing = false;

  constructor(
    private readonly redis: RedisConnections,
    private readonly options: RedisQueryEventLogOptions,
  ) {
    this.follower = new RedisStreamFollower(redis, options.onError);
  }

  /**
   * The record is sent, not waited for: the run's model call need not wait a Redis round trip. It goes first on
   * the command connection, which every later write of the query uses too, so Redis has it before any of the
   * query's events or its end. A Redis known to be down still refuses the query (503); a write that fails in
   * flight is logged, and the database answers for the query then (DurableQueryEventLog), as for its events.
   */
  async open(record: NewQueryRecord): Promise<void> {
    if (!this.redis.ready) throw redisUnavailable('starting a query');
    const key = this.recordKey(record.id);
    this.redis.command
      .multi()
      .hset(key, {
        id: record.id,
        userId: record.userId,
        discussionId: record.discussionId,
        messageId: record.messageId,
        model: record.model,
        status: 'running',
        createdAt: record.createdAt.getTime(),
        endedAt: '',
        lastEventId: 0,
      })
      .expire(key, this.options.runningTtlSeconds)
      .exec()
      .catch((error: unknown) => this.options.onError(error, 'could not record a query in Redis'));
    await this.local.open(record);
    this.statuses.set(record.id, 'running');
  }

  append(queryId: string, body: QueryEventBody): QueryEvent {
    const event = this.local.append(queryId, body);
    let writes = this.pending.get(queryId);
    if (!writes) this.pending.set(queryId, (writes = { events: [], status: 'running' }));
    // Its JSON was made as its streams framed it (eventJson): sent as that text.
    writes.events.push({ sequenceNumber: event.sequence_number, json: eventJson(event) });
    const status = statusAfter(this.statuses.get(queryId) ?? 'running', body);
    this.statuses.set(queryId, status);
    writes.status = status;
    this.scheduleFlush();
    return event;
  }

  async end(queryId: string, terminal: QueryEventBody, at = new Date()): Promise<QueryEvent | undefined> {
    const record = await this.local.get(queryId);
    if (!record || record.endedAt) return undefined;
    const event = { ...terminal, sequence_number: record.lastEventId + 1 } as QueryEvent;
    // Everything before the terminal event is sent first, on the same connection: Redis receives them in order.
    const earlier = this.flush();
    const key = this.recordKey(queryId);
    const stream = this.streamKey(queryId);
    const written = this.redis.command
      .multi()
      .xadd(stream, streamId(event.sequence_number), EVENT_FIELD, JSON.stringify(event))
      .hset(key, {
        status: endStatusOf(event),
        endedAt: at.getTime(),
        lastEventId: event.sequence_number,
      })
      .expire(key, RETENTION_SECONDS)
      .expire(stream, RETENTION_SECONDS)
      .exec();
    try {
      await Promise.all([earlier, written]);
      this.failing = false;
    } catch (error) {
      // Its own streams still hear the end; the database has it (DurableQueryEventLog) for everyone else.
      this.options.onError(error, 'could not record the end of a query in Redis');
    }
    this.statuses.delete(queryId);
    this.streamsWithTtl.delete(queryId);
    return this.local.end(queryId, terminal, at);
  }

  /** Undefined when Redis cannot be reached: the database answers for the query then (DurableQueryEventLog). */
  async get(queryId: string): Promise<QueryRecord | undefined> {
    const local = await this.local.get(queryId);
    if (local) return local;
    try {
      return recordOf(await this.redis.command.hgetall(this.recordKey(queryId)));
    } catch (error) {
      this.options.onError(error, 'could not read a query from Redis');
      return undefined;
    }
  }

  async events(queryId: string, after = 0): Promise<readonly QueryEvent[]> {
    if (await this.local.get(queryId)) return this.local.events(queryId, after);
    return this.storedEvents(queryId, after);
  }

  async subscribe(queryId: string, after: number, listener: QueryEventListener): Promise<() => void> {
    if (await this.local.get(queryId)) return this.local.subscribe(queryId, after, listener);
    let last = after;
    for (const event of await this.storedEvents(queryId, after)) {
      listener(event);
      last = event.sequence_number;
      if (isTerminalEvent(event)) return () => undefined;
    }
    // Followed from the last event replayed: whatever was added meanwhile comes next, nothing twice.
    return this.follower.follow(this.streamKey(queryId), last, listener);
  }

  /** How many streams of other instances' queries this process follows (one reader for all of them). */
  get followedStreams(): number {
    return this.follower.size;
  }

  close(): void {
    this.local.close();
    void this.follower.close();
  }

  private async storedEvents(queryId: string, after: number): Promise<QueryEvent[]> {
    const entries = (await this.redis.command.xrange(
      this.streamKey(queryId),
      `(${streamId(after)}`,
      '+',
    )) as StreamEntry[];
    return eventsOfEntries(entries);
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // After this tick's events, before the next I/O: one pipeline for every token that arrived together.
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush().catch(() => undefined);
    });
  }

  /** Sends every pending event, with each query's status (and its stream's lifetime, once), as one pipeline. */
  private flush(): Promise<void> {
    if (this.pending.size === 0) return Promise.resolve();
    const batch = this.pending;
    this.pending = new Map();
    const pipeline = this.redis.command.pipeline();
    const givenTtl: string[] = [];
    for (const [queryId, writes] of batch) {
      this.queue(pipeline, queryId, writes);
      if (!this.streamsWithTtl.has(queryId)) {
        pipeline.expire(this.streamKey(queryId), this.options.runningTtlSeconds);
        givenTtl.push(queryId);
      }
    }
    // Only a pipeline that went through gave its streams their TTL; after a failure the next one gives it.
    return this.sent(pipeline).then(() => {
      for (const queryId of givenTtl) if (this.statuses.has(queryId)) this.streamsWithTtl.add(queryId);
    });
  }

  private async sent(pipeline: ChainableCommander): Promise<void> {
    try {
      const results = await pipeline.exec();
      const failed = results?.find(([error]) => error)?.[0];
      if (failed) throw failed;
      this.failing = false;
    } catch (error) {
      if (!this.failing) this.options.onError(error, 'could not write query events to Redis');
      this.failing = true;
      throw error;
    }
  }

  private queue(pipeline: ChainableCommander, queryId: string, writes: PendingWrites): void {
    const stream = this.streamKey(queryId);
    const key = this.recordKey(queryId);
    for (const event of writes.events) {
      pipeline.xadd(stream, streamId(event.sequenceNumber), EVENT_FIELD, event.json);
    }
    pipeline.hset(key, {
      status: writes.status,
      lastEventId: writes.events[writes.events.length - 1].sequenceNumber,
    });
  }

  private recordKey(queryId: string): string {
    return this.redis.key('query', queryId);
  }

  private streamKey(queryId: string): string {
    return this.redis.key('query', queryId, 'events');
  }
}

function recordOf(hash: Record<string, string>): QueryRecord | undefined {
  if (!hash['id']) return undefined;
  return {
    id: hash['id'],
    userId: hash['userId'],
    discussionId: hash['discussionId'],
    messageId: hash['messageId'],
    model: hash['model'],
    status: hash['status'] as QueryRecord['status'],
    createdAt: new Date(Number(hash['createdAt'])),
    endedAt: hash['endedAt'] ? new Date(Number(hash['endedAt'])) : null,
    lastEventId: Number(hash['lastEventId']),
  };
}
