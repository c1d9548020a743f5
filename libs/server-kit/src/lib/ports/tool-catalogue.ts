import type { Scope } from '@assistant/contracts';
import type { ConnectedTool, ToolFamily, WithheldTool } from '@assistant/tool-kit';

/** What a run may use: its tools with their drivers, and the account's other tools with the reason each is withheld. */
export interface RunTools {
  tools: ConnectedTool[];
  withheld: WithheldTool[];
}

/** Nest's handle on the account's tools, for the runs of queries and the protocols that serve them (ToolCatalog). */
export const TOOL_CATALOGUE = Symbol('TOOL_CATALOGUE');

/**
 * The account's tools as a query's run and a protocol that serves them (MCP) see them: the families, the tools a
 * caller may use (filtered by its scopes), the server's own connections, and a signal when an account's tools
 * change. Queries and MCP depend on this, not on the catalogue's class, so each is a lib of its own.
 */
export interface ToolCatalogue {
  readonly families: readonly ToolFamily[];
  /** The tools a query of this principal may use; `only` is the query's `tools` list (unknown names are a 422). */
  forRun(
    principal: { userId: string; scopes: readonly Scope[] },
    only?: readonly string[],
  ): Promise<RunTools>;
  /**
   * The connections the server gives an account by itself (the memory family over its own storage, a hosted
   * web search), by name and family: a run tells the model of them beside the account's own.
   */
  defaultConnections(userId: string): readonly { name: string; family: string }[];
  /** Calls `listener` whenever the account's tools change; returns the call that stops it. */
  onChange(userId: string, listener: () => void): () => void;
}
