import { randomBytes } from 'node:crypto';
import type { Principal } from '@assistant/auth';
import type { McpLimits } from '@assistant/server-kit';

/**
 * The session of a 2025-revision MCP client (`Mcp-Session-Id`): all that any instance needs to serve its next
 * request, so that it may land on any of them. Nothing of the protocol is held between requests (each is served
 * by a fresh server): a session is whose it is, and which request ids it has in flight.
 */
export interface McpSession {
  id: string;
  userId: string;
  /** The credential that opened it (`grantId` of an OAuth token, which its refreshes keep, or the token's id). */
  credential: string;
}

/** Nest's handle on the deployment's session store (ClusterModule: Redis's, or one in memory). */
export const MCP_SESSIONS = Symbol('MCP_SESSIONS');

/** A JSON-RPC request id as a session keeps it (`1` and `"1"` are two ids). */
export type RequestId = string | number;

/**
 * Where the sessions live: in the process for a self-hosted server, in Redis for the hosted service. Each is
 * bounded per account (`sessionsPerAccount`, the least recently used ends first) and ends when unused for
 * `sessionIdleMs`.
 */
export interface McpSessionStore {
  /** Opens a session for the principal; the account's least recently used ends if it has its limit already. */
  open(principal: Principal): Promise<McpSession>;
  /** The session, as used now (its idle time starts again); null if unknown, ended or expired. */
  use(id: string): Promise<McpSession | null>;
  /** Whether the session still lives, without counting as a use (an open event stream asks). */
  alive(id: string): Promise<boolean>;
  end(id: string): Promise<void>;
  /**
   * Marks a request id of the session in flight for `forMs` at most (a crashed instance's marks lapse); false if
   * it is in flight already.
   */
  claimRequest(id: string, requestId: RequestId, forMs: number): Promise<boolean>;
  releaseRequest(id: string, requestId: RequestId): Promise<void>;
}

/** Who may use a session: the account, through the credential that opened it. */
export function credentialOf(principal: Principal): string {
  return principal.grantId ?? principal.tokenId;
}

export function belongsTo(session: McpSession, principal: Principal): boolean {
  return session.userId === principal.userId && session.credential === credentialOf(principal);
}

/** A new session id: 128 random bits, unguessable (an id alone does not give the session away, but it helps). */
export function newSessionId(): string {
  return randomBytes(16).toString('base64url');
}

/** A request id as a string key that keeps `1` and `"1"` apart. */
export function requestKey(requestId: RequestId): string {
  return `${typeof requestId}:${requestId}`;
}

interface HeldSession extends McpSession {
  lastUsed: number;
  inFlight: Map<string, number>;
}

/** How often the in-process store looks for idle sessions of accounts that did not come back. */
const SWEEP_EVERY_MS = 60_000;

/** The sessions of a self-hosted server: one process serves them all, and a restart ends them. */
export class MemoryMcpSessionStore implements McpSessionStore {
  private readonly sessions = new Map<string, HeldSession>();
  /** Per account, its sessions in the order they were last used (a Map keeps insertion order). */
  private readonly byAccount = new Map<string, Map<string, HeldSession>>();
  private lastSweep: number;

  constructor(
    private readonly limits: Pick<McpLimits, 'sessionsPerAccount' | 'sessionIdleMs'>,
    private readonly now: () => number = Date.now,
  ) {
    this.lastSweep = now();
  }

  async open(principal: Principal): Promise<McpSession> {
    this.sweep();
    for (const session of this.byAccount.get(principal.userId)?.values() ?? []) {
      if (this.expired(session)) this.drop(session);
    }
    const account = this.accountOf(principal.userId);
    while (account.size >= this.limits.sessionsPerAccount) {
      const [leastRecent] = account.values();
      this.drop(leastRecent!);
    }
    const session: HeldSession = {
      id: newSessionId(),
      userId: principal.userId,
      credential: credentialOf(principal),
      lastUsed: this.now(),
      inFlight: new Map(),
    };
    this.sessions.set(session.id, session);
    account.set(session.id, session);
    return publicOf(session);
  }

  async use(id: string): Promise<McpSession | null> {
    const session = this.live(id);
    if (!session) return null;
    session.lastUsed = this.now();
    const account = this.accountOf(session.userId);
    account.delete(id);
    account.set(id, session);
    return publicOf(session);
  }

  async alive(id: string): Promise<boolean> {
    return this.live(id) !== undefined;
  }

  async end(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (session) this.drop(session);
  }

  async claimRequest(id: string, requestId: RequestId, forMs: number): Promise<boolean> {
    const session = this.live(id);
    if (!session) return false;
    const key = requestKey(requestId);
    const until = session.inFlight.get(key);
    if (until !== undefined && until > this.now()) return false;
    session.inFlight.set(key, this.now() + forMs);
    return true;
  }

  async releaseRequest(id: string, requestId: RequestId): Promise<void> {
    this.sessions.get(id)?.inFlight.delete(requestKey(requestId));
  }

  /** How many sessions it holds (tests). */
  get size(): number {
    return this.sessions.size;
  }

  private live(id: string): HeldSession | undefined {
    const session = this.sessions.get(id);
    if (session && this.expired(session)) {
      this.drop(session);
      return undefined;
    }
    return session;
  }

  private expired(session: HeldSession): boolean {
    return this.now() - session.lastUsed >= this.limits.sessionIdleMs;
  }

  private accountOf(userId: string): Map<string, HeldSession> {
    let account = this.byAccount.get(userId);
    if (!account) this.byAccount.set(userId, (account = new Map()));
    return account;
  }

  private drop(session: HeldSession): void {
    this.sessions.delete(session.id);
    const account = this.byAccount.get(session.userId);
    account?.delete(session.id);
    if (account?.size === 0) this.byAccount.delete(session.userId);
  }

  /** Idle sessions of accounts that opened none since are dropped now and then, not only when looked up. */
  private sweep(): void {
    if (this.now() - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = this.now();
    for (const session of this.sessions.values()) if (this.expired(session)) this.drop(session);
  }
}

function publicOf({ id, userId, credential }: HeldSession): McpSession {
  return { id, userId, credential };
}
