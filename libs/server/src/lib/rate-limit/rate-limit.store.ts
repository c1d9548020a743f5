/**
 * Counts requests per key in fixed windows. The self-hosted server keeps the counts in memory; the hosted one
 * needs them shared between processes (Redis), so the store is an interface.
 */
export interface RateLimitStore {
  /** Counts one request for `key` and returns the count so far in the current window and when it ends. */
  hit(key: string, windowSeconds: number): Promise<{ count: number; resetAt: number }>;
  close(): Promise<void>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(sweepEveryMs = 60_000) {
    this.sweeper = setInterval(() => this.sweep(), sweepEveryMs);
    this.sweeper.unref();
  }

  async hit(key: string, windowSeconds: number): Promise<{ count: number; resetAt: number }> {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      // Windows are aligned to their length, so the reset time does not depend on when the first request came.
      const size = windowSeconds * 1000;
      window = { count: 0, resetAt: Math.floor(now / size) * size + size };
      this.windows.set(key, window);
    }
    window.count++;
    return { count: window.count, resetAt: window.resetAt };
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.windows.clear();
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
  }
}
