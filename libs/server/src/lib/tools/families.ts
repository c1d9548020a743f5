import type { ToolFamily } from '@assistant/tool-kit';
import { memoryFamily } from '@assistant/tools-memory';
import { webFamily } from '@assistant/tools-web';
import { filesFamily } from '@assistant/tools-files';
import { homeFamily } from '@assistant/tools-home';
import { calendarFamily } from '@assistant/tools-calendar';
import { emailFamily } from '@assistant/tools-email';

/**
 * The tool families this server offers: the one list that queries, `GET /tools`, the built-in model's phrasings
 * and (later) MCP all derive from. A family is added here and nowhere else.
 */
export const FAMILIES: readonly ToolFamily[] = [
  memoryFamily as ToolFamily,
  webFamily as ToolFamily,
  filesFamily as ToolFamily,
  homeFamily as ToolFamily,
  calendarFamily as ToolFamily,
  emailFamily as ToolFamily,
];
