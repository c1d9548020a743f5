import { ApiError } from '@assistant/server-kit';

/** Gives a run slot back; calling it again does nothing. */
export type ReleaseRunSlot = () => void;

/**
 * The concurrent-run cap (SPEC §7): how many of an account's queries may run at once. The self-hosted server
 * counts in its one process; the hosted service counts in Redis, across every instance.
 */
export interface RunSlots {
  /** Takes one of the user's slots, or throws `rate_limited` when all are taken (`service_unavailable` if the count cannot be reached). */
  take(userId: string): Promise<ReleaseRunSlot>;
}

/** The refusal when every slot of the account is taken; one wording for every implementation. */
export function runCapReached(taken: number): ApiError {
  return new ApiError(
    'rate_limited',
    `${taken} queries are already running for this account; wait for one to finish`,
    { headers: { 'retry-after': '5' } },
  );
}

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
