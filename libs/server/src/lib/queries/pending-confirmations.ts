import type { ConfirmationOutcome } from '@assistant/agent-core';

/** How long an answered call is remembered, so that a second answer is a 409 rather than a 404. */
const ANSWERED_KEPT_MS = 15 * 60_000;

/**
 * The side-effecting calls of this process's runs that wait for the user's yes or no. A call waits until it is
 * answered, its deadline passes (`timeout`) or its run is cancelled (`denied`). Kept in memory with the runs
 * themselves: a confirmation must reach the process that runs the query (the scale issue's shared store will
 * carry them across instances).
 */
export class PendingConfirmations {
  private readonly waiting = new Map<string, (outcome: ConfirmationOutcome) => void>();
  private readonly answered = new Map<string, NodeJS.Timeout>();

  constructor(private readonly deadlineMs: number) {}

  wait(queryId: string, callId: string, runSignal: AbortSignal): Promise<ConfirmationOutcome> {
    const key = keyOf(queryId, callId);
    return new Promise((resolve) => {
      const settle = (outcome: ConfirmationOutcome) => {
        if (!this.waiting.has(key)) return;
        this.waiting.delete(key);
        clearTimeout(timer);
        runSignal.removeEventListener('abort', onCancel);
        this.remember(key);
        resolve(outcome);
      };
      const timer = setTimeout(() => settle('timeout'), this.deadlineMs);
      const onCancel = () => settle('denied');
      this.waiting.set(key, settle);
      if (runSignal.aborted) onCancel();
      else runSignal.addEventListener('abort', onCancel, { once: true });
    });
  }

  /** Gives the user's answer to a waiting call: `answered`, `already` (answered before, or timed out) or `unknown`. */
  answer(queryId: string, callId: string, approve: boolean): 'answered' | 'already' | 'unknown' {
    const key = keyOf(queryId, callId);
    const settle = this.waiting.get(key);
    if (settle) {
      settle(approve ? 'approved' : 'denied');
      return 'answered';
    }
    return this.answered.has(key) ? 'already' : 'unknown';
  }

  private remember(key: string): void {
    const timer = setTimeout(() => this.answered.delete(key), ANSWERED_KEPT_MS);
    timer.unref();
    this.answered.set(key, timer);
  }
}

const keyOf = (queryId: string, callId: string) => `${queryId}\u0000${callId}`;
