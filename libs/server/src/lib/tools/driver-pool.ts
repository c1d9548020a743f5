import type { Driver } from '@assistant/tool-kit';

interface Pooled {
  driver: Promise<unknown>;
  timer?: NodeJS.Timeout;
}

/**
 * Opened drivers by connection (and version), so that the second question within a minute reuses the logged-in
 * IMAP session instead of logging in again. A driver unused for `idleMs` is closed; so is every one at shutdown.
 */
export class DriverPool {
  private readonly pooled = new Map<string, Pooled>();

  constructor(private readonly idleMs: number) {}

  /** The driver under `key`, opened with `open` the first time (a failed open is not kept). */
  get<D>(key: string, open: () => Promise<D>): Promise<D> {
    let entry = this.pooled.get(key);
    if (!entry) {
      entry = { driver: open() };
      this.pooled.set(key, entry);
      entry.driver.catch(() => this.pooled.delete(key));
    }
    this.keepAlive(key, entry);
    return entry.driver as Promise<D>;
  }

  get size(): number {
    return this.pooled.size;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.pooled.keys()].map((key) => this.close(key)));
  }

  private keepAlive(key: string, entry: Pooled): void {
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => void this.close(key), this.idleMs);
    entry.timer.unref();
  }

  private async close(key: string): Promise<void> {
    const entry = this.pooled.get(key);
    if (!entry) return;
    this.pooled.delete(key);
    clearTimeout(entry.timer);
    const driver = (await entry.driver.catch(() => undefined)) as Driver | undefined;
    // A driver that fails to close (a server already gone) has nothing left to release.
    await driver?.close?.().catch(() => undefined);
  }
}
