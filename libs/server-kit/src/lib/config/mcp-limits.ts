/**
 * What one account may hold of the MCP endpoint, so that no client exhausts the process or Redis (B7): the
 * sessions of 2025-revision clients (a small record each, kept where every instance sees it) and the open
 * `subscriptions/listen` streams of current-revision clients (a socket each, on the instance that holds it).
 */
export interface McpLimits {
  /** 2025-revision sessions per account; opening one more ends the account's least recently used. */
  sessionsPerAccount: number;
  /** A session that no request has used for this long ends: its next request is answered 404. */
  sessionIdleMs: number;
  /** `subscriptions/listen` streams per account open at once on one instance; one more is refused. */
  listenStreamsPerAccount: number;
}

export const MCP_LIMITS: McpLimits = {
  // A user's MCP clients (a desktop app, an editor, the launcher per window) with room for restarts.
  sessionsPerAccount: 20,
  sessionIdleMs: 30 * 60_000,
  listenStreamsPerAccount: 20,
};

/** The limits with a deployment's own (tests make them small). */
export function mcpLimitsOf(overrides: Partial<McpLimits> | undefined): McpLimits {
  return { ...MCP_LIMITS, ...overrides };
}
