/**
 * What was built for an account recently, kept for its next queries: the account's tools are built before every
 * model call (a database read of its connections, their secrets decrypted, every tool wrapped), ~0.1 ms on SQLite
 * and a round trip on PostgreSQL, and they change only when a connection does. The owner drops an account's entry
 * when its tools change (`forget`) and every entry when it may have missed such a change (`forgetAll`). An entry
 * also lapses after `ttlMs`, and beyond `maxEntries` the oldest goes, so that idle accounts' decrypted secrets
 * are not kept.
 */
export class AccountToolsCache<T> {
  private readonly entries = new Map<string, { value: Promise<T>; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The account's kept value, or `build`'s, kept from now on (a failed build is not kept). Callers at the same
   * time share one build; one that a `forget` overtook serves those who asked before it, and is not kept.
   */
  get(userId: string, build: () => Promise<T>): Promise<T> {
    const now = this.now();
    const kept = this.entries.get(userId);
    if (kept && kept.expiresAt > now) return kept.value;
    this.entries.delete(userId);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    const entry = { value: build(), expiresAt: now + this.ttlMs };
    this.entries.set(userId, entry);
    entry.value.catch(() => {
      if (this.entries.get(userId) === entry) this.entries.delete(userId);
    });
    return entry.value;
  }

  forget(userId: string): void {
    this.entries.delete(userId);
  }

  forgetAll(): void {
    this.entries.clear();
  }
}
