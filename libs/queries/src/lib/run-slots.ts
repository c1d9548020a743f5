import { runCapReached, type ReleaseRunSlot, type RunSlots } from '@assistant/server-kit';

/** The slots of one process: a count per user, taken synchronously so that simultaneous requests cannot all pass. */
export class MemoryRunSlots implements RunSlots {
  private readonly taken = new Map<string, number>();

  constructor(private readonly limit: number) {}

  async take(userId: string): Promise<ReleaseRunSlot> {
    const taken = this.taken.get(userId) ?? 0;
    if (taken >= this.limit) throw runCapReached(taken);
    this.taken.set(userId, taken + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.taken.get(userId) ?? 1) - 1;
      if (left > 0) this.taken.set(userId, left);
      else this.taken.delete(userId);
    };
  }
}
