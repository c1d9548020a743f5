/**
 * Counts requests per key in fixed windows. The self-hosted server keeps the counts in memory; the hosted one
 * needs them shared between processes (rate-limiter-flexible's Redis limiter behind this same interface). The
 * store only counts: the limits, the headers and the 429 are decided in one place, the rate-limit hook.
 */
export interface RateLimitStore {
  /**
   * Counts one request for `key` and returns the count so far in its window and when that window ends: a value
   * when the store counts in this process (no promise, no microtask on every request), a promise when it asks
   * another (Redis).
   */
  hit(key: string, windowSeconds: number): WindowCount | Promise<WindowCount>;
  close(): Promise<void>;
}

/** A key's count in its current window, and when that window ends (ms since the epoch). */
export interface WindowCount {
  count: number;
  resetAt: number;
}

/**
 * How many keys the memory store holds at most. A key is a client address, a token or a user, and each lives
 * for its window (an hour by default); a client spreading requests over many addresses (an IPv6 range) must not
 * grow the process without limit. At ~0.5 KB a key this is ~50 MB at worst; a household uses a handful.
 */
export const MEMORY_STORE_MAX_KEYS = 100_000;

/** How often at most the memory store looks for keys whose window has ended. */
const SWEEP_EVERY_MS = 1000;

/** One key's fixed window: how many requests it counted, and when it ends (ms since the epoch). */
interface Window {
  count: number;
  resetAt: number;
}

/**
 * Fixed windows in a Map, bounded to `maxKeys`: beyond it, the least recently counted key is forgotten. Forgetting
 * only ever lets a client start counting afresh, never blocks one that is within its limit. (rate-limiter-flexible's
 * memory limiter, used before, made promises and a result object on every request, and a timer per key.)
 */
export class MemoryRateLimitStore implements RateLimitStore {
  /** The keys' windows in the order they were last counted, oldest first (counting moves a key to the end). */
  private readonly windows = new Map<string, Window>();
  /** When ended windows are next looked for: at most once a second, not at every count (an iterator each). */
  private sweepAt = 0;

  constructor(private readonly maxKeys = MEMORY_STORE_MAX_KEYS) {}

  hit(key: string, windowSeconds: number): WindowCount {
    const now = Date.now();
    let window = this.windows.get(key);
    if (window === undefined || window.resetAt <= now)
      window = { count: 0, resetAt: now + windowSeconds * 1000 };
    else this.windows.delete(key);
    window.count += 1;
    this.windows.set(key, window);
    if (this.windows.size > this.maxKeys || now >= this.sweepAt) {
      this.forgetOldest(now);
      this.sweepAt = now + SWEEP_EVERY_MS;
    }
    return { count: window.count, resetAt: window.resetAt };
  }

  /** How many keys are held at most right now (keys whose window ended may still be among them). */
  get size(): number {
    return this.windows.size;
  }

  async close(): Promise<void> {
    this.windows.clear();
  }

  /**
   * Forgets the least recently counted keys while there are too many or their window has ended: a key lives about
   * as long as its window (a second more at most). Stops at the first that stays, so a request pays for the keys
   * it forgets, no more.
   */
  private forgetOldest(now: number): void {
    for (const [key, window] of this.windows) {
      if (this.windows.size <= this.maxKeys && window.resetAt > now) return;
      this.windows.delete(key);
    }
  }
}
