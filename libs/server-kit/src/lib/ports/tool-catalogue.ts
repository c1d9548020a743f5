import type { Scope } from '@assistant/contracts';
import type { ConnectedTool, ToolFamily, WithheldTool } from '@assistant/tool-kit';

/** What a run may use: its tools with their drivers, and the account's other tools with the reason each is withheld. */
export interface RunTools {
  tools: ConnectedTool[];
  withheld: WithheldTool[];
}

/** Nest's handle on the account tools a protocol serves (the catalogue of `tools/`, ToolCatalog). */
export const TOOL_CATALOGUE = Symbol('TOOL_CATALOGUE');

/**
 * The account's tools as a protocol that serves them (MCP) sees them: the families, the tools a caller may use
 * (filtered by its scopes), and a signal when an account's tools change. MCP depends on this, not on the
 * catalogue's class, so it can be served from its own lib on any catalogue.
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
