import type { Scope } from '@assistant/contracts';
import type { ConnectedTool, ToolFamily, WithheldTool } from '@assistant/tool-kit';

/** What a run may use: its tools with their drivers, and the account's other tools with the reason each is withheld. */
export interface RunTools {
  tools: ConnectedTool[];
  withheld: WithheldTool[];
  /**
   * The connections the run's tools go through — the account's own that work, then the server's for every
   * account — by name and family, for the model to be told of. Only of the families of `tools`, so that a token
   * narrowed to some tools learns nothing through the model of connections it cannot use.
   */
  connections: ReadonlyArray<{ name: string; family: string }>;
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
  /** Calls `listener` whenever the account's tools change; returns the call that stops it. */
  onChange(userId: string, listener: () => void): () => void;
}
