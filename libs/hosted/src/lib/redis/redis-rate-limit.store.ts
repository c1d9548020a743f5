import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { MemoryRateLimitStore, type RateLimitStore } from '@assistant/server/hosting';

/**
 * rate-limiter-flexible's Redis limiter: counts shared by every instance of the hosted service, each key expiring
 * with its window in Redis.
 *
 * When Redis cannot be reached, counting falls back to this process's memory store (it fails open, but not
 * unlimited): refusing every request while Redis is down would take reads down with it (GET /me, discussions,
 * finished queries live in PostgreSQL and must keep working), while each instance still limits on its own, so a
 * flood during an outage is at most N instances × the limit. Queries themselves are refused with a 503 then, by
 * the run slots, which cannot be counted locally without breaking the cap.
 */
export class RedisRateLimitStore implements RateLimitStore {
  // The points are irrelevant: `penalty` counts without deciding, the hook compares the count with the limit.
  private readonly limiter: RateLimiterRedis;
  private readonly fallback = new MemoryRateLimitStore();

  constructor(client: Redis, keyPrefix: string) {
    this.limiter = new RateLimiterRedis({
      storeClient: client,
      keyPrefix: `${keyPrefix}rl`,
      points: 1,
      duration: 1,
      // Straight to the fallback while disconnected, instead of waiting for a command to fail.
      rejectIfRedisNotReady: true,
    });
  }

  async hit(key: string, windowSeconds: number): Promise<{ count: number; resetAt: number }> {
    try {
      const counted = await this.limiter.penalty(key, 1, { customDuration: windowSeconds });
      return { count: counted.consumedPoints, resetAt: Date.now() + counted.msBeforeNext };
    } catch {
      return this.fallback.hit(key, windowSeconds);
    }
  }

  /** The Redis connection belongs to whoever opened it; only the fallback's timers are this store's. */
  async close(): Promise<void> {
    await this.fallback.close();
  }
}
