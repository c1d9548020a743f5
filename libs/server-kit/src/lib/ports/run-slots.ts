import { ApiError } from '../http/api-error';

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

/** Nest's handle on the deployment's run slots (ClusterModule provides them). */
export const RUN_SLOTS = Symbol('RUN_SLOTS');
