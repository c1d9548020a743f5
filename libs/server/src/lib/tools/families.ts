import type { ToolFamily } from '@assistant/tool-kit';
import { memoryFamily } from '@assistant/tools-memory';
import { webFamily } from '@assistant/tools-web';
import { filesFamily } from '@assistant/tools-files';
import { homeFamily } from '@assistant/tools-home';
import { calendarFamily } from '@assistant/tools-calendar';
import { emailFamily } from '@assistant/tools-email';

/**
 * The product's tool families: what a server offers unless its composition is given others
 * (`ServerParts.families`). Queries, `GET /tools`, MCP (its list and instructions), the built-in model's
 * phrasings and help, and a language model's instructions all derive from the families the server is given; no
 * other list names them. A family's tools name scopes of the contract (`SCOPE_DESCRIPTIONS`), which tokens and
 * the consent page know.
 */
export const FAMILIES: readonly ToolFamily[] = [
  memoryFamily,
  webFamily,
  filesFamily,
  homeFamily,
  calendarFamily,
  emailFamily,
];
