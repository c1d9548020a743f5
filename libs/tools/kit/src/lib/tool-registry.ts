import type { Scope } from '@assistant/contracts';
import type { ToolDefinition } from './define-tool';

/**
 * A tool of the account that a run may not use, and why: the caller's token lacks its scope, or the query's own
 * `tools` list leaves it out. The model is told, so that it can say which of the two to change.
 */
export type WithheldTool =
  { name: string; reason: 'scope'; scope: Scope } | { name: string; reason: 'not_requested' };

/** Why a tool is withheld from a run, or null when the run may use it. A missing scope comes first: naming the tool in `tools` would not help. */
function withholding(
  tool: Pick<ToolDefinition, 'name' | 'scope'>,
  scopes: readonly Scope[],
  only: readonly string[] | undefined,
): WithheldTool | null {
  if (!scopes.includes(tool.scope)) return { name: tool.name, reason: 'scope', scope: tool.scope };
  if (only && !only.includes(tool.name)) return { name: tool.name, reason: 'not_requested' };
  return null;
}

const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);

/** The tools a run may use: those active on the account and allowed by the caller's token, in a stable order. */
export function allowedTools<T extends ToolDefinition>(
  tools: readonly T[],
  scopes: readonly Scope[],
  only?: readonly string[],
): T[] {
  return tools.filter((tool) => withholding(tool, scopes, only) === null).sort(byName);
}

/** The other tools of the account, each with the reason it is withheld from the run, in the same order. */
export function withheldTools(
  tools: readonly ToolDefinition[],
  scopes: readonly Scope[],
  only?: readonly string[],
): WithheldTool[] {
  return [...tools].sort(byName).flatMap((tool) => withholding(tool, scopes, only) ?? []);
}
