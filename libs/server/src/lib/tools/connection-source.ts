/**
 * A connection of an account (a mailbox, a calendar, a folder…) as the tool catalogue needs it: which family and
 * provider, and the settings and decrypted secrets to open a driver with. `updatedAt` tells a changed
 * connection from the one whose driver is pooled.
 */
export interface ActiveConnection {
  id: string;
  family: string;
  provider: string;
  /** Unique in its account and family: what a tool call's `connection` argument names. */
  name: string;
  /** The family's connection a call that names none goes through (when it serves the tool). */
  isDefault: boolean;
  settings: Record<string, unknown>;
  secrets: Record<string, unknown>;
  updatedAt: Date;
  /** What its opened driver is pooled under, when the id alone does not tell accounts apart (default connections). */
  poolKey?: string;
  /** `needs_reauth`: made by OAuth, and the provider no longer accepts it (its tools say so). */
  status?: 'ok' | 'error' | 'needs_reauth';
}

/** Where the catalogue finds an account's connections: the connections resource implements it over storage. */
export interface ConnectionSource {
  /** The account's connections in the order they were added. */
  activeConnections(userId: string): Promise<ActiveConnection[]>;
}

export const CONNECTION_SOURCE = Symbol('CONNECTION_SOURCE');
