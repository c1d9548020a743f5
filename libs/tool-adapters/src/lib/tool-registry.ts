import type { Scope } from '@assistant/contracts';
import type { ToolDefinition } from './define-tool';

/** The tools a run may use: those active on the account and allowed by the caller's token, in a stable order. */
export function allowedTools(
  tools: readonly ToolDefinition[],
  scopes: readonly Scope[],
  only?: readonly string[],
): ToolDefinition[] {
  return tools
    .filter((tool) => scopes.includes(tool.scope))
    .filter((tool) => !only || only.includes(tool.name))
    .sort((a, b) => a.name.localeCompare(b.name));
}
