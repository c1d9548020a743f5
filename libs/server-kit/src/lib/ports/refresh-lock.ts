/**
 * Holds a lock per OAuth grant while its access token is refreshed, so that a connection is refreshed once at a
 * time: in this process on a self-hosted server (`MemoryRefreshLock`), across every instance on the hosted
 * service (Redis, `RedisRefreshLock` in @assistant/hosted). A provider that rotates refresh tokens (Microsoft)
 * would otherwise see two refreshes with the same token and revoke the grant.
 */
export interface RefreshLock {
  /** Runs `work` while holding the lock named `key`; waits for a holder elsewhere to finish first. */
  hold<T>(key: string, work: () => Promise<T>): Promise<T>;
}

export const REFRESH_LOCK = Symbol('REFRESH_LOCK');

/** One process's locks: a chain of promises per key. */
export class MemoryRefreshLock implements RefreshLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  async hold<T>(key: string, work: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    const run = before.catch(() => undefined).then(work);
    const tail = run.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
