import type { ToolFamily } from '@assistant/tool-kit';
import { memoryFamily } from '@assistant/tools-memory';

/**
 * The tool families this server offers: the one list that queries, `GET /tools`, the built-in model's phrasings
 * and (later) MCP all derive from. A family is added here and nowhere else.
 */
export const FAMILIES: readonly ToolFamily[] = [memoryFamily as ToolFamily];
