import { isTerminalEvent, type QueryEvent } from '@assistant/contracts';
import type { RedisConnections } from './redis-connections';
import { READ_BLOCK_MS } from './redis-connections';
import { eventsOfEntries, streamId, type StreamEntry } from './redis-query-keys';

/** After a failed read (Redis down), how long to wait before reading again. */
const RETRY_MS = 500;

interface Follower {
  /** The sequence number of the last event it was given. */
  last: number;
  listener(event: QueryEvent): void;
}

/**
 * Follows the live query streams that this process serves but another one runs, all with one blocking XREAD on
 * one connection: a thousand idle streams are a thousand small entries here, not a thousand Redis connections.
 * Each stream is read from the lowest position any of its followers needs; each follower is given only the events
 * after its own, and is dropped after the terminal event.
 */
export class RedisStreamFollower {
  private readonly streams = new Map<string, Set<Follower>>();
  private closed = false;
  /** Resolves the wait of a loop that has nothing to follow. */
  private idle: (() => void) | undefined;
  /** Whether an XREAD is out: a new stream must interrupt it to be included. */
  private reading = false;
  private readerId: number | undefined;
  private readonly loopDone: Promise<void>;

  constructor(
    private readonly redis: RedisConnections,
    private readonly onError: (error: unknown, what: string) => void,
  ) {
    // The reader's client id changes with every connection; CLIENT UNBLOCK needs the current one.
    redis.reader.on('ready', () => void this.learnReaderId());
    void this.learnReaderId();
    this.loopDone = this.loop();
  }

  /** Gives `listener` the events of the stream at `key` after `after`, as they come; returns the stop function. */
  follow(key: string, after: number, listener: (event: QueryEvent) => void): () => void {
    const follower: Follower = { last: after, listener };
    let followers = this.streams.get(key);
    if (!followers) this.streams.set(key, (followers = new Set()));
    followers.add(follower);
    this.wake();
    return () => this.drop(key, follower);
  }

  /** How many streams are followed now. */
  get size(): number {
    return this.streams.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.streams.clear();
    this.wake();
    await this.loopDone;
  }

  private drop(key: string, follower: Follower): void {
    const followers = this.streams.get(key);
    if (!followers) return;
    followers.delete(follower);
    if (followers.size === 0) this.streams.delete(key);
  }

  private async loop(): Promise<void> {
    while (!this.closed) {
      if (this.streams.size === 0) {
        await new Promise<void>((resolve) => (this.idle = resolve));
        this.idle = undefined;
        continue;
      }
      const keys = [...this.streams.keys()];
      const ids = keys.map((key) => streamId(lowest(this.streams.get(key))));
      let result: Array<[string, StreamEntry[]]> | null;
      try {
        this.reading = true;
        result = (await this.redis.reader.xread('BLOCK', READ_BLOCK_MS, 'STREAMS', ...keys, ...ids)) as Array<
          [string, StreamEntry[]]
        > | null;
      } catch (error) {
        if (this.closed) break;
        this.onError(error, 'could not read query events of another instance');
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref());
        continue;
      } finally {
        this.reading = false;
      }
      for (const [key, entries] of result ?? []) this.deliver(key, eventsOfEntries(entries));
    }
  }

  private deliver(key: string, events: QueryEvent[]): void {
    const followers = this.streams.get(key);
    if (!followers) return;
    for (const follower of [...followers]) {
      for (const event of events) {
        if (event.sequence_number <= follower.last) continue;
        follower.last = event.sequence_number;
        follower.listener(event);
        if (isTerminalEvent(event)) {
          this.drop(key, follower);
          break;
        }
      }
    }
  }

  /**
   * Makes the loop include a stream added just now: starts it if idle, or interrupts its XREAD. The interruption
   * is sent twice: an UNBLOCK that reaches Redis before the XREAD does would be lost, and the new stream would
   * wait for the XREAD's timeout.
   */
  private wake(): void {
    if (this.idle) return this.idle();
    if (!this.reading || this.readerId === undefined) return;
    const unblock = () => {
      if (this.reading) {
        this.redis.command.call('CLIENT', 'UNBLOCK', this.readerId as number).catch(() => undefined);
      }
    };
    unblock();
    setTimeout(unblock, 20).unref();
  }

  private async learnReaderId(): Promise<void> {
    try {
      this.readerId = Number(await this.redis.reader.call('CLIENT', 'ID'));
    } catch {
      // Not connected: learnt again on 'ready'.
    }
  }
}

function lowest(followers: Set<Follower> | undefined): number {
  let lowest = Number.MAX_SAFE_INTEGER;
  for (const follower of followers ?? []) lowest = Math.min(lowest, follower.last);
  return lowest;
}
