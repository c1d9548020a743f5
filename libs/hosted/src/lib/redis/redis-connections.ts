import { OperatorError } from '@assistant/contracts';
import { Redis, type RedisOptions } from 'ioredis';
import { ApiError, tracing } from '@assistant/server-kit';
import { traceRedisCommands } from './redis-tracing';

/**
 * How long one Redis command may take before it fails. Redis answers in well under a millisecond; a command that
 * takes seconds is a connection that died without closing, and the request waiting for it must fail (503), not
 * hang.
 */
const COMMAND_TIMEOUT_MS = 2_000;
const CONNECT_TIMEOUT_MS = 3_000;
/** How long the reader's XREAD waits for new events before asking again (with the streams followed by then). */
export const READ_BLOCK_MS = 2_000;
/** Reconnection back-off: quick at first, then every 2 s for as long as it takes (no restart needed). */
const retryStrategy = (attempt: number) => Math.min(attempt * 100, 2_000);

/**
 * While Redis is unreachable, commands fail at once instead of queueing (`enableOfflineQueue: false`): a query
 * refused with a 503 now is better than one that starts minutes later. A command in flight when the connection
 * drops is not retried on the next connection (`maxRetriesPerRequest: 0`): its caller decides.
 */
const SHARED_OPTIONS: RedisOptions = {
  lazyConnect: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  connectTimeout: CONNECT_TIMEOUT_MS,
  retryStrategy,
};

/**
 * The hosted API's connections to Redis, each for one kind of traffic: `command` for ordinary commands (counts,
 * slots, query records and events, publishing); `subscriber` in pub/sub mode (a connection that subscribes can do
 * nothing else); `reader` for the one blocking XREAD that follows every live query stream this process serves to
 * other processes' runs (a blocked connection can do nothing else either). Three connections per process,
 * whatever the number of streams.
 */
export class RedisConnections {
  readonly command: Redis;
  readonly subscriber: Redis;
  readonly reader: Redis;

  private constructor(
    url: string,
    /** Put before every key and channel (`ASSISTANT_REDIS_KEY_PREFIX`). */
    readonly prefix: string,
  ) {
    // Named after the deployment and their role, so that CLIENT LIST tells an operator whose they are.
    const named = (role: string) => ({ ...SHARED_OPTIONS, connectionName: clientName(prefix, role) });
    this.command = new Redis(url, { ...named('command'), commandTimeout: COMMAND_TIMEOUT_MS });
    this.subscriber = new Redis(url, named('subscriber'));
    // Blocking reads wait on purpose, up to READ_BLOCK_MS: only well past that is the connection dead.
    this.reader = new Redis(url, { ...named('reader'), commandTimeout: READ_BLOCK_MS + COMMAND_TIMEOUT_MS });
    for (const connection of this.all()) {
      // ioredis reports a lost connection on 'error' too; reconnecting is its job, and failing commands say so
      // to their callers. Without a listener the error would be thrown from the emitter and end the process.
      connection.on('error', () => undefined);
    }
    const traced = tracing();
    if (traced) for (const connection of this.all()) traceRedisCommands(connection, traced);
  }

  /** Connects all three, or fails with one line naming the server (never the password). */
  static async open(url: string, prefix: string): Promise<RedisConnections> {
    const connections = new RedisConnections(url, prefix);
    try {
      await Promise.all(connections.all().map((connection) => connection.connect()));
    } catch (error) {
      connections.close();
      const { host, port } = new URL(url);
      throw new OperatorError(
        `cannot reach Redis at ${host}:${port || 6379} (ASSISTANT_REDIS_URL): ${(error as Error).message}`,
      );
    }
    return connections;
  }

  /** A key or channel name of this deployment. */
  key(...parts: string[]): string {
    return `${this.prefix}${parts.join(':')}`;
  }

  /** Whether ordinary commands can be sent now (readiness, and refusing queries early). */
  get ready(): boolean {
    return this.command.status === 'ready';
  }

  close(): void {
    for (const connection of this.all()) connection.disconnect();
  }

  private all(): Redis[] {
    return [this.command, this.subscriber, this.reader];
  }
}

/** A Redis client name (no spaces or quotes) of a deployment's connection. */
export function clientName(prefix: string, role: string): string {
  return `${prefix}${role}`.replace(/[^\w:.-]/g, '_');
}

/**
 * What a request that needed Redis answers when it could not reach it: 503 `service_unavailable`, with a hint
 * when to try again. The cause is for the log, not the client.
 */
export function redisUnavailable(what: string): ApiError {
  return new ApiError(
    'service_unavailable',
    `${what} is not possible right now; try again in a few seconds`,
    {
      headers: { 'retry-after': '5' },
    },
  );
}
