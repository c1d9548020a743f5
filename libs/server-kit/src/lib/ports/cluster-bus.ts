/**
 * What the processes of one deployment tell each other, by topic. Every message is plain data (it crosses
 * Redis as JSON).
 */
export interface ClusterMessages {
  /** Verified tokens to forget: revoked personal or device tokens, revoked integrations and grants. */
  'principals.forgotten': { userId?: string; tokenId?: string; clientId?: string; grantId?: string };
  /** The account's tools may have changed (a connection added, changed or removed): MCP's `list_changed`. */
  'tools.changed': { userId: string };
  /** The user answered a call that waits for a confirmation (see ConfirmationExchange). */
  'confirmation.answered': { queryId: string; callId: string; approve: boolean };
}

export type ClusterTopic = keyof ClusterMessages;

/**
 * Tells the other processes of the deployment about something that happened here. Whoever publishes has already
 * acted on it in its own process (at once, and even if the bus is down): handlers hear only other processes'
 * messages. Delivery is at most once; a process that was cut off is told so (`onReconnect`) and catches up.
 */
export interface ClusterBus {
  /**
   * Sends `message` to the other processes; resolves once the bus has taken it (a revocation waits for that
   * before it answers), never rejects: a failure is reported by the bus, and the message is lost.
   */
  publish<T extends ClusterTopic>(topic: T, message: ClusterMessages[T]): Promise<void>;
  /** Calls `handler` with each message of `topic` from another process; returns the unsubscribe function. */
  subscribe<T extends ClusterTopic>(topic: T, handler: (message: ClusterMessages[T]) => void): () => void;
  /** Calls `listener` after a lost connection is back: messages sent meanwhile were missed. */
  onReconnect(listener: () => void): () => void;
  close(): Promise<void>;
}

/** A deployment of one process (self-hosted): nobody else to tell. */
export class SingleProcessBus implements ClusterBus {
  async publish(): Promise<void> {
    // No other process.
  }

  subscribe(): () => void {
    return () => undefined;
  }

  onReconnect(): () => void {
    return () => undefined;
  }

  async close(): Promise<void> {
    // Nothing held.
  }
}

/** Nest's handle on the deployment's cluster bus (ClusterModule provides it). */
export const CLUSTER_BUS = Symbol('CLUSTER_BUS');
