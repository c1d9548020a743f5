import type { ConfirmationOutcome } from '@assistant/agent-core';
import {
  SINGLE_PROCESS_CONFIRMATIONS,
  type AnswerResult,
  type ConfirmationExchange,
} from '@assistant/server-kit';

/** How long an answered call is remembered, so that a second answer is a 409 rather than a 404. */
const ANSWERED_KEPT_MS = 15 * 60_000;

/**
 * The side-effecting calls of this process's runs that wait for the user's yes or no. A call waits until it is
 * answered, its deadline passes (`timeout`) or its run is cancelled (`denied`). Kept in memory with the runs
 * themselves; an answer given to another process of the deployment reaches this one through the exchange.
 */
export class PendingConfirmations {
  private readonly waiting = new Map<string, (outcome: ConfirmationOutcome) => void>();
  private readonly answered = new Map<string, NodeJS.Timeout>();

  private readonly stopListening: () => void;

  constructor(
    private readonly deadlineMs: number,
    private readonly exchange: ConfirmationExchange = SINGLE_PROCESS_CONFIRMATIONS,
  ) {
    this.stopListening = exchange.onAnswer((queryId, callId, approve) =>
      this.waiting.get(keyOf(queryId, callId))?.(approve ? 'approved' : 'denied'),
    );
  }

  wait(queryId: string, callId: string, runSignal: AbortSignal): Promise<ConfirmationOutcome> {
    const key = keyOf(queryId, callId);
    return new Promise((resolve) => {
      const settle = (outcome: ConfirmationOutcome) => {
        if (!this.waiting.has(key)) return;
        this.waiting.delete(key);
        clearTimeout(timer);
        runSignal.removeEventListener('abort', onCancel);
        this.remember(key);
        this.exchange.settled(queryId, callId);
        resolve(outcome);
      };
      const timer = setTimeout(() => settle('timeout'), this.deadlineMs);
      const onCancel = () => settle('denied');
      this.waiting.set(key, settle);
      this.exchange.waiting(queryId, callId, this.deadlineMs);
      if (runSignal.aborted) onCancel();
      else runSignal.addEventListener('abort', onCancel, { once: true });
    });
  }

  /**
   * Gives the user's answer to a waiting call, here or on the process where it waits: `answered`, `already`
   * (answered before, or timed out) or `unknown`.
   */
  async answer(queryId: string, callId: string, approve: boolean): Promise<AnswerResult> {
    const key = keyOf(queryId, callId);
    const settle = this.waiting.get(key);
    if (settle) {
      settle(approve ? 'approved' : 'denied');
      return 'answered';
    }
    if (this.answered.has(key)) return 'already';
    return this.exchange.answer(queryId, callId, approve);
  }

  close(): void {
    this.stopListening();
  }

  private remember(key: string): void {
    const timer = setTimeout(() => this.answered.delete(key), ANSWERED_KEPT_MS);
    timer.unref();
    this.answered.set(key, timer);
  }
}

const keyOf = (queryId: string, callId: string) => `${queryId}\u0000${callId}`;
