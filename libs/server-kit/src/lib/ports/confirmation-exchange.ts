export type AnswerResult = 'answered' | 'already' | 'unknown';

/**
 * Carries the user's yes or no to a call that waits on another process of the deployment: a confirmation may
 * land on any instance behind the load balancer, while the call waits in the process that runs its query.
 */
export interface ConfirmationExchange {
  /** A call of this process starts waiting, for `deadlineMs` at most: other processes may answer it now. */
  waiting(queryId: string, callId: string, deadlineMs: number): void;
  /** The call was answered, timed out or cancelled here: a later answer anywhere is `already`. */
  settled(queryId: string, callId: string): void;
  /** An answer given here to a call that does not wait on this process. */
  answer(queryId: string, callId: string, approve: boolean): Promise<AnswerResult>;
  /** Answers given on other processes to this process's calls; returns the unsubscribe function. */
  onAnswer(listener: (queryId: string, callId: string, approve: boolean) => void): () => void;
}

/** One process runs every query (self-hosted): a call that does not wait here waits nowhere. */
export const SINGLE_PROCESS_CONFIRMATIONS: ConfirmationExchange = {
  waiting: () => undefined,
  settled: () => undefined,
  answer: async () => 'unknown',
  onAnswer: () => () => undefined,
};

/** Nest's handle on the deployment's confirmation exchange (ClusterModule provides it). */
export const CONFIRMATION_EXCHANGE = Symbol('CONFIRMATION_EXCHANGE');
