import type { QueryEventBody } from '@assistant/contracts';

/**
 * Told about the query runs of this process as they happen (metrics). Called on the run's own path, so it must be
 * quick and must not throw.
 */
export interface RunObserver {
  /** A run began: its question is stored and its model picked. */
  runStarted(queryId: string, model: string): void;
  /** Each event of the run as it goes into the event log; the terminal one (exactly one per run) last. */
  runEvent(queryId: string, event: QueryEventBody): void;
}

/** Nest's handle on the RunObserver; absent when nothing observes (no metrics). */
export const RUN_OBSERVER = Symbol('RUN_OBSERVER');

export const NO_RUN_OBSERVER: RunObserver = { runStarted: () => undefined, runEvent: () => undefined };
