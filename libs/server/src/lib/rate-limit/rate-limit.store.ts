import type { RateLimiterMemory as MemoryLimiter } from 'rate-limiter-flexible';

/** The one limiter this store uses, not the package's index, which loads every store it has (~18 ms of start-up). */
const RateLimiterMemory = require('rate-limiter-flexible/lib/RateLimiterMemory') as typeof MemoryLimiter;

/**
 * Counts requests per key in fixed windows. The self-hosted server keeps the counts in memory; the hosted one
 * needs them shared between processes (rate-limiter-flexible's Redis limiter behind this same interface). The
 * store only counts: the limits, the headers and the 429 are decided in one place, the rate-limit hook.
 */
export interface RateLimitStore {
  /** Counts one request for `key` and returns the count so far in its window and when that window ends. */
  hit(key: string, windowSeconds: number): Promise<{ count: number; resetAt: number }>;
  close(): Promise<void>;
}

/**
 * How many keys the memory store holds at most. A key is a client address, a token or a user, and each lives
 * for its window (an hour by default); a client spreading requests over many addresses (an IPv6 range) must not
 * grow the process without limit. At ~0.5 KB a key this is ~50 MB at worst; a household uses a handful.
 */
export const MEMORY_STORE_MAX_KEYS = 100_000;

/**
 * rate-limiter-flexible's memory limiter (each key expires with its window, on a timer of its own), with a bound
 * on the number of keys that it lacks: beyond `maxKeys`, the least recently counted key is forgotten. Forgetting
 * only ever lets a client start counting afresh, never blocks one that is within its limit.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  // The points are irrelevant: `penalty` counts without deciding, the hook compares the count with the limit.
  private readonly limiter = new RateLimiterMemory({ points: 1, duration: 1 });
  /** The keys in the order they were last counted, oldest first. */
  private readonly recent = new Set<string>();

  constructor(private readonly maxKeys = MEMORY_STORE_MAX_KEYS) {}

  async hit(key: string, windowSeconds: number): Promise<{ count: number; resetAt: number }> {
    const counted = await this.limiter.penalty(key, 1, { customDuration: windowSeconds });
    this.recent.delete(key);
    this.recent.add(key);
    while (this.recent.size > this.maxKeys) await this.forget(this.recent.values().next().value as string);
    return { count: counted.consumedPoints, resetAt: Date.now() + counted.msBeforeNext };
  }

  /** How many keys are held at most right now (keys whose window ended may still be among them). */
  get size(): number {
    return this.recent.size;
  }

  async close(): Promise<void> {
    // Deleting clears each key's expiry timer.
    for (const key of [...this.recent]) await this.forget(key);
  }

  private async forget(key: string): Promise<void> {
    this.recent.delete(key);
    await this.limiter.delete(key);
  }
}
