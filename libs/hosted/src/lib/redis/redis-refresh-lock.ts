import { randomBytes } from 'node:crypto';
import type { RefreshLock } from '@assistant/server-kit';
import { redisUnavailable, type RedisConnections } from './redis-connections';

/** Deletes the lock only if this holder still holds it (it may have lapsed and been taken by another). */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** How long a lock lapses after, should its holder crash: longer than a token endpoint takes to answer. */
const LOCK_TTL_MS = 30_000;
/** How often a waiting instance asks again. */
const RETRY_MS = 50;

/**
 * The lock per OAuth grant of the hosted service: `SET NX PX` with a random holder value, so that one instance
 * refreshes a connection's tokens at a time; the others wait, then read the tokens it stored (the token
 * source's `reload`). A holder that crashes lets the lock lapse after LOCK_TTL_MS.
 */
export class RedisRefreshLock implements RefreshLock {
  constructor(
    private readonly redis: RedisConnections,
    private readonly onError: (error: unknown, what: string) => void,
    private readonly ttlMs = LOCK_TTL_MS,
  ) {}

  async hold<T>(name: string, work: () => Promise<T>): Promise<T> {
    const key = this.redis.key('oauth-refresh', name);
    const holder = randomBytes(12).toString('hex');
    const deadline = Date.now() + this.ttlMs;
    for (;;) {
      let taken: string | null;
      try {
        taken = await this.redis.command.set(key, holder, 'PX', this.ttlMs, 'NX');
      } catch (error) {
        this.onError(error, 'could not take an OAuth refresh lock');
        throw redisUnavailable('refreshing a connection');
      }
      if (taken === 'OK') break;
      // A holder past the lock's lifetime crashed or hangs: its lock lapses by then anyway.
      if (Date.now() > deadline) throw redisUnavailable('refreshing a connection');
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
    try {
      return await work();
    } finally {
      await this.redis.command
        .eval(RELEASE, 1, key, holder)
        .catch((error: unknown) => this.onError(error, 'could not release an OAuth refresh lock'));
    }
  }
}
