import type { ChainableCommander } from 'ioredis';
import {
  isTerminalEvent,
  type QueryEvent,
  type QueryEventBody,
  type QueryStatus,
} from '@assistant/contracts';
import { MemoryQueryEventLog, eventJson } from '@assistant/queries';
import {
  endStatusOf,
  statusAfter,
  type NewQueryRecord,
  type QueryEventListener,
  type QueryEventLog,
  type QueryRecord,
  type RunnerLiveness,
} from '@assistant/server-kit';
import { redisUnavailable, type RedisConnections } from './redis-connections';
import { RedisStreamFollower } from './redis-stream-follower';
import { EVENT_FIELD, eventsOfEntries, streamId, type StreamEntry } from './redis-query-keys';

/** SPEC §4: a finished query stays replayable for at least 15 minutes. */
const RETENTION_SECONDS = 15 * 60;
/**
 * Text deltas go to Redis at most once per this many milliseconds, with whatever else came meanwhile: a pipeline
 * costs this process a round trip whatever it carries (~0.3 ms of CPU for a lone stream, whose process sleeps
 * between tokens), and one per token made a lone stream's Redis writes cost more than the rest of its work; at
 * 20 ms, a stream of a token every 5 ms still cost 1.6× the self-hosted server's CPU (decision 0015). A
 * delta that comes when the last write is older than this is sent at the end of its tick (a slow stream's tokens
 * one by one, as they come); one that comes sooner waits for the next delta that does, and goes with it in the
 * same wake-up of the process — or by itself this long after it came, if none does. This process's own streams
 * hear every event at once, other instances' followers a delta at most this much later; any other event (a tool
 * call, a confirmation asked for, the end) is sent at the end of its tick, with the deltas before it.
 */
const DELTA_WRITE_INTERVAL_MS = 50;
/** After a write that failed (Redis away), how soon it is sent again (and at once when the connection is back). */
const RETRY_MS = 500;
/**
 * How many events wait for Redis at most while it cannot be reached: a few minutes of a busy process's streams.
 * Beyond, the waiting queries' copies in Redis are given up (deleted once it is back): their readers read the
 * database, which has every event.
 */
const MAX_WAITING_EVENTS = 100_000;

/**
 * Writes what one query has pending, as one command of a pipeline: its events, then fields of its record, then
 * the lifetime of both keys. One command instead of one per event and one per field: each command costs the
 * process its own object, promise and timer in ioredis (~4 µs), the script's loop a fraction of that. An event
 * that the stream has already (a write sent again after a failure that was not one) is skipped.
 *
 * KEYS[1] the record, KEYS[2] the stream; ARGV: the lifetime (s) to give both keys after the writes (0: none),
 * the events' field, the first event's sequence number (the entry ids are `streamId`'s), the number of events
 * (consecutive), each event's JSON, then the record's fields and values to set.
 */
const WRITE_QUERY = `
local first = tonumber(ARGV[3])
local count = tonumber(ARGV[4])
for i = 1, count do
  local added = redis.pcall('XADD', KEYS[2], '0-' .. (first + i - 1), ARGV[2], ARGV[4 + i])
  if type(added) == 'table' and added.err and not string.find(added.err, 'equal or smaller', 1, true) then
    return added
  end
end
if #ARGV > 4 + count then redis.call('HSET', KEYS[1], unpack(ARGV, 5 + count)) end
local ttl = tonumber(ARGV[1])
if ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
end
return count
`;
/** WRITE_QUERY's name on the command connection (ioredis sends it by its digest once the connection has it). */
const WRITE_QUERY_COMMAND = 'assistantWriteQuery';

/** A pipeline of the command connection, which has WRITE_QUERY defined. */
type WritesPipeline = ChainableCommander &
  Record<typeof WRITE_QUERY_COMMAND, (...args: Array<string | number>) => ChainableCommander>;
/** The command connection itself, with WRITE_QUERY defined. */
type WritesConnection = RedisConnections['command'] &
  Record<typeof WRITE_QUERY_COMMAND, (...args: Array<string | number>) => Promise<unknown>>;

/**
 * Ends a query in Redis as recovery ended it in the database, if its copy there is whole: adds the events it
 * lacks, then the ended status, and gives both keys the retention. A copy that lacks events before them (Redis
 * lost them, or the runner died before it could send them) is deleted instead: its readers read the database.
 *
 * KEYS[1] the record, KEYS[2] the stream; ARGV: the first event's sequence number, the status, when it ended
 * (ms), the retention (s), the events' field, then each event's JSON.
 */
const END_RECOVERED = `
local first = tonumber(ARGV[1])
local top = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local last = 0
if top[1] then last = tonumber(string.match(top[1][1], '%-(%d+)$')) end
if redis.call('HEXISTS', KEYS[1], 'id') == 0 or last < first - 1 then
  redis.call('DEL', KEYS[1], KEYS[2])
  return 0
end
for i = 6, #ARGV do
  local sequence = first + i - 6
  if sequence > last then redis.call('XADD', KEYS[2], '0-' .. sequence, ARGV[5], ARGV[i]) end
end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'endedAt', ARGV[3], 'lastEventId', first + #ARGV - 6)
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return 1
`;

export interface RedisQueryEventLogOptions {
  /**
   * How long a running query's record and stream live in Redis without an end: longer than any run can last, so
   * that those of a process that crashed mid-run go away on their own.
   */
  runningTtlSeconds: number;
  /** This process as the runner of its queries, recorded on each: whoever reads them asks `runners` about it. */
  runnerId: string;
  /** Whether the runner of a query that another process runs is gone (its lease lapsed). */
  runners: RunnerLiveness;
  onError(error: unknown, what: string): void;
}

/** One query's command of a write: WRITE_QUERY with its arguments, or the deletion of its given-up copy. */
type QueryCommand = { write: Array<string | number> } | { delete: [record: string, stream: string] };

/** What one query still has to send to Redis, in this order. */
interface PendingWrites {
  /** Its record, sent once before anything else of it (`open`). */
  record?: Record<string, string | number>;
  /** Each event's sequence number and JSON text. */
  events: Array<{ sequenceNumber: number; json: string }>;
  /** Fields of its record to set after the events: its status and last event, and its end. */
  fields: Record<string, string | number>;
  /** It has ended: its record and stream live for the retention from now on. */
  ended?: boolean;
  /** Its copy is given up (too much waited for an unreachable Redis): both keys are deleted, nothing else sent. */
  dropped?: boolean;
}

/**
 * The hosted service's live query event log, shared by every instance through Redis: a hash per query (its
 * record, with its owner and its runner) and a stream of its events (entry id `0-<sequence number>`).
 *
 * The process that runs a query keeps it in memory too (a MemoryQueryEventLog) and delivers each event to its
 * own streams at once; the events reach Redis a tick later (text deltas up to DELTA_WRITE_INTERVAL_MS later),
 * every event of that tick in one command per query (WRITE_QUERY; a pipeline of them when several queries have
 * events), in order on one connection, one write at a time, so that a token costs no Redis round trip or command
 * of its own. The terminal event and the ended status are sent before anyone hears them, then both keys expire
 * after the retention. A write that fails (Redis away) is sent again, with whatever came since, until Redis has it: a copy in Redis
 * is never left with a hole or a stale status by an outage (SECURITY B8).
 *
 * Any other instance reads the record and the stream from Redis: a resumed stream replays the events after the
 * client's Last-Event-ID (XRANGE), then follows new ones with the process's one blocking reader. A record that
 * has not ended, and whose runner is gone, is not vouched for (`get` is undefined): the database tells what
 * became of the query (DurableQueryEventLog).
 */
export class RedisQueryEventLog implements QueryEventLog {
  readonly runnerId: string;
  /** Kept after a query's end for ENDED_QUERY_KEPT_MS; later readers read Redis like every other instance. */
  private readonly local = new MemoryQueryEventLog();
  private readonly follower: RedisStreamFollower;
  private pending = new Map<string, PendingWrites>();
  /** Every write, chained: one pipeline at a time, so that one sent again after a failure keeps its place. */
  private writes: Promise<unknown> = Promise.resolve();
  /** The status of each query this process runs, as its events change it (awaiting a confirmation or not). */
  private readonly statuses = new Map<string, QueryStatus>();
  /**
   * Queries whose event stream has its running TTL in Redis: given once, with the stream's first events, not with
   * every tick's (a third of the commands a token cost).
   */
  private readonly streamsWithTtl = new Set<string>();
  /** Running queries whose copy in Redis was given up: nothing more of them is sent. */
  private readonly dropped = new Set<string>();
  /** Whether a write is due at the end of this tick (setImmediate). */
  private flushScheduled = false;
  /** When the last pipeline was sent (performance.now()). */
  private lastWriteAt = -Infinity;
  /** The write that pending deltas wait for at the latest, when no other takes them. */
  private deltaTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  /** Whether the last write failed, so that an outage is logged once, not once per tick. */
  private failing = false;
  private readonly onReconnect = () => {
    // Redis may have come back empty (restarted): the TTLs are given again with the next events.
    this.streamsWithTtl.clear();
    if (this.pending.size > 0) this.flush().catch(() => undefined);
  };

  constructor(
    private readonly redis: RedisConnections,
    private readonly options: RedisQueryEventLogOptions,
  ) {
    this.runnerId = options.runnerId;
    this.follower = new RedisStreamFollower(redis, options.onError);
    redis.command.defineCommand(WRITE_QUERY_COMMAND, { numberOfKeys: 2, lua: WRITE_QUERY });
    redis.command.on('ready', this.onReconnect);
  }

  /**
   * The record is sent, not waited for: the run's model call need not wait a Redis round trip. It goes at the end
   * of this tick, with the query's first events (one round trip, not two), ahead of them on the command
   * connection. A Redis known to be down still refuses the query (503); a write that fails in flight is sent
   * again (see the class), and the database answers for the query meanwhile (DurableQueryEventLog).
   */
  async open(record: NewQueryRecord): Promise<void> {
    if (!this.redis.ready) throw redisUnavailable('starting a query');
    this.writesOf(record.id).record = {
      id: record.id,
      userId: record.userId,
      discussionId: record.discussionId,
      messageId: record.messageId,
      model: record.model,
      owner: record.owner,
      runnerId: this.runnerId,
      status: 'running',
      createdAt: record.createdAt.getTime(),
      endedAt: '',
      lastEventId: 0,
    };
    this.scheduleFlush();
    await this.local.open(record);
    this.statuses.set(record.id, 'running');
  }

  append(queryId: string, body: QueryEventBody): QueryEvent {
    const event = this.local.append(queryId, body);
    const status = statusAfter(this.statuses.get(queryId) ?? 'running', body);
    this.statuses.set(queryId, status);
    if (!this.dropped.has(queryId)) {
      const writes = this.writesOf(queryId);
      // Its JSON was made as its streams framed it (eventJson): sent as that text.
      writes.events.push({ sequenceNumber: event.sequence_number, json: eventJson(event) });
      writes.fields.status = status;
      writes.fields.lastEventId = event.sequence_number;
      if (
        body.type !== 'output_text.delta' ||
        performance.now() - this.lastWriteAt >= DELTA_WRITE_INTERVAL_MS
      )
        this.scheduleFlush();
      else this.flushDeltasLater();
    }
    return event;
  }

  async end(queryId: string, terminal: QueryEventBody, at = new Date()): Promise<QueryEvent | undefined> {
    const record = await this.local.get(queryId);
    if (!record || record.endedAt) return undefined;
    const event = { ...terminal, sequence_number: record.lastEventId + 1 } as QueryEvent;
    if (!this.dropped.has(queryId)) {
      // After everything before it, on the same connection: Redis receives them in order.
      const writes = this.writesOf(queryId);
      writes.events.push({ sequenceNumber: event.sequence_number, json: JSON.stringify(event) });
      writes.fields.status = endStatusOf(event);
      writes.fields.endedAt = at.getTime();
      writes.fields.lastEventId = event.sequence_number;
      writes.ended = true;
      // Should Redis be away, its own streams still hear the end now, the database has it for everyone else,
      // and Redis gets it once it is back.
      await this.flush().catch(() => undefined);
    }
    this.statuses.delete(queryId);
    this.streamsWithTtl.delete(queryId);
    this.dropped.delete(queryId);
    return this.local.end(queryId, terminal, at);
  }

  /**
   * Undefined when Redis cannot be reached, or does not vouch for the query: it has not ended there and its
   * runner is gone. The database answers for the query then (DurableQueryEventLog).
   */
  async get(queryId: string): Promise<QueryRecord | undefined> {
    const local = await this.local.get(queryId);
    if (local) return local;
    let hash: Record<string, string>;
    try {
      hash = await this.redis.command.hgetall(this.recordKey(queryId));
    } catch (error) {
      this.options.onError(error, 'could not read a query from Redis');
      return undefined;
    }
    const record = recordOf(hash);
    if (!record || record.endedAt) return record;
    // Whatever its runner last wrote is all there will be: a crash cut it short, or its last writes are lost.
    if (hash['runnerId'] && (await this.options.runners.isGone(hash['runnerId']))) return undefined;
    return record;
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

  /** Streams that follow the query hear the end too: it goes into its stream like any event. */
  async endRecovered(
    queryId: string,
    after: number,
    events: readonly QueryEvent[],
    endedAt: Date,
  ): Promise<void> {
    const terminal = events.at(-1);
    if (!terminal || !isTerminalEvent(terminal)) throw new Error(`no terminal event to end ${queryId} with`);
    await this.redis.command.eval(
      END_RECOVERED,
      2,
      this.recordKey(queryId),
      this.streamKey(queryId),
      after + 1,
      endStatusOf(terminal),
      endedAt.getTime(),
      RETENTION_SECONDS,
      EVENT_FIELD,
      ...events.map((event) => JSON.stringify(event)),
    );
  }

  /** How many streams of other instances' queries this process follows (one reader for all of them). */
  get followedStreams(): number {
    return this.follower.size;
  }

  close(): void {
    clearTimeout(this.retryTimer);
    clearTimeout(this.deltaTimer);
    this.redis.command.off('ready', this.onReconnect);
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

  private writesOf(queryId: string): PendingWrites {
    let writes = this.pending.get(queryId);
    if (!writes) this.pending.set(queryId, (writes = { events: [], fields: {} }));
    return writes;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // After this tick's events, before the next I/O: one pipeline for every event that arrived together.
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush().catch(() => undefined);
    });
  }

  /** Sends the pending deltas within DELTA_WRITE_INTERVAL_MS, unless a later event's write takes them sooner. */
  private flushDeltasLater(): void {
    if (this.deltaTimer) return;
    this.deltaTimer = setTimeout(() => {
      this.deltaTimer = undefined;
      this.flush().catch(() => undefined);
    }, DELTA_WRITE_INTERVAL_MS);
    this.deltaTimer.unref();
  }

  /** Sends what is pending once the pipeline before it is through; rejects if Redis did not take it. */
  private flush(): Promise<void> {
    const sent = this.writes.then(() => this.sendPending());
    this.writes = sent.catch(() => undefined);
    return sent;
  }

  /**
   * Every pending write, with each query's status (and its stream's lifetime, once): one command when one query
   * has writes pending (a lone stream's every write), a pipeline of one per query otherwise. A pipeline costs
   * ioredis an object, a promise and an array of results more than the command itself: measured, ~50 µs of this
   * process's CPU per write of ~150–200.
   */
  private async sendPending(): Promise<void> {
    // Whatever the deltas waited for is sent now, with them.
    clearTimeout(this.deltaTimer);
    this.deltaTimer = undefined;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.lastWriteAt = performance.now();
    const givenTtl: string[] = [];
    const commands: QueryCommand[] = [];
    for (const [queryId, writes] of batch) {
      const firstEvents = !writes.ended && writes.events.length > 0 && !this.streamsWithTtl.has(queryId);
      commands.push(this.commandOf(queryId, writes, firstEvents));
      if (firstEvents && !writes.dropped) givenTtl.push(queryId);
    }
    try {
      await this.sent(commands);
    } catch (error) {
      this.sendAgain(batch);
      throw error;
    }
    // Only a pipeline that went through gave its streams their TTL; after a failure the next one gives it.
    for (const queryId of givenTtl) if (this.statuses.has(queryId)) this.streamsWithTtl.add(queryId);
  }

  /** Sends `commands` (commandOf's) in order on the command connection; rejects if any failed. */
  private async sent(commands: readonly QueryCommand[]): Promise<void> {
    try {
      const [only] = commands;
      if (commands.length === 1 && 'write' in only) {
        await (this.redis.command as WritesConnection)[WRITE_QUERY_COMMAND](...only.write);
      } else {
        const pipeline = this.redis.command.pipeline() as WritesPipeline;
        for (const command of commands) {
          if ('write' in command) pipeline[WRITE_QUERY_COMMAND](...command.write);
          else pipeline.del(...command.delete);
        }
        const results = await pipeline.exec();
        const failed = results?.find(([error]) => error)?.[0];
        if (failed) throw failed;
      }
      this.failing = false;
    } catch (error) {
      if (!this.failing)
        this.options.onError(error, 'could not write query events to Redis; sending them again');
      this.failing = true;
      throw error;
    }
  }

  /**
   * Puts a batch that Redis did not take back before whatever came since, to be sent again shortly: all of it,
   * since what went through before the failure is harmless to send twice (the stream keeps an entry once). Past
   * MAX_WAITING_EVENTS, the waiting queries' copies are given up instead.
   */
  private sendAgain(batch: Map<string, PendingWrites>): void {
    const newer = this.pending;
    this.pending = batch;
    for (const [queryId, writes] of newer) {
      const failed = this.pending.get(queryId);
      this.pending.set(queryId, failed ? merged(failed, writes) : writes);
    }
    let waiting = 0;
    for (const writes of this.pending.values()) waiting += writes.events.length;
    if (waiting > MAX_WAITING_EVENTS) this.dropWaiting();
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.flush().catch(() => undefined);
    }, RETRY_MS);
    this.retryTimer.unref();
  }

  private dropWaiting(): void {
    const queries = [...this.pending.keys()];
    for (const queryId of queries) {
      this.pending.set(queryId, { events: [], fields: {}, dropped: true });
      if (this.statuses.has(queryId)) this.dropped.add(queryId);
    }
    this.options.onError(
      new Error(`Redis was away too long: the copies of ${queries.length} queries are given up`),
      'their readers read the database',
    );
  }

  /**
   * One query's writes as WRITE_QUERY's arguments: its record (when it opens), its events, its status and last
   * event, and the lifetime of its keys — the running one when it opens and with its first events, the retention
   * once it ends. A copy given up is deleted instead.
   */
  private commandOf(queryId: string, writes: PendingWrites, firstEvents: boolean): QueryCommand {
    const stream = this.streamKey(queryId);
    const key = this.recordKey(queryId);
    if (writes.dropped) return { delete: [key, stream] };
    const ttl = writes.ended
      ? RETENTION_SECONDS
      : writes.record || firstEvents
        ? this.options.runningTtlSeconds
        : 0;
    const args: Array<string | number> = [
      key,
      stream,
      ttl,
      EVENT_FIELD,
      writes.events[0]?.sequenceNumber ?? 0,
      writes.events.length,
    ];
    for (const event of writes.events) args.push(event.json);
    for (const fields of [writes.record, writes.fields]) {
      if (fields) for (const [field, value] of Object.entries(fields)) args.push(field, value);
    }
    return { write: args };
  }

  private recordKey(queryId: string): string {
    return this.redis.key('query', queryId);
  }

  private streamKey(queryId: string): string {
    return this.redis.key('query', queryId, 'events');
  }
}

/** A query's writes that failed, followed by those that came since. */
function merged(failed: PendingWrites, newer: PendingWrites): PendingWrites {
  if (failed.dropped || newer.dropped) return { events: [], fields: {}, dropped: true };
  return {
    record: failed.record ?? newer.record,
    events: [...failed.events, ...newer.events],
    fields: { ...failed.fields, ...newer.fields },
    ended: failed.ended || newer.ended,
  };
}

function recordOf(hash: Record<string, string>): QueryRecord | undefined {
  if (!hash['id']) return undefined;
  return {
    id: hash['id'],
    userId: hash['userId'],
    discussionId: hash['discussionId'],
    messageId: hash['messageId'],
    model: hash['model'],
    // A record written before owners were kept: the account's, as then.
    owner: hash['owner'] ?? '',
    status: hash['status'] as QueryRecord['status'],
    createdAt: new Date(Number(hash['createdAt'])),
    endedAt: hash['endedAt'] ? new Date(Number(hash['endedAt'])) : null,
    lastEventId: Number(hash['lastEventId']),
  };
}
