import type { FamilyLanguage, ToolFamily } from '@assistant/tool-kit';
import { memoryFamily } from '@assistant/tools-memory';
import { webFamily } from '@assistant/tools-web';
import { filesFamily } from '@assistant/tools-files';
import { homeFamily } from '@assistant/tools-home';
import { calendarFamily } from '@assistant/tools-calendar';

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
];

/**
 * Families of SPEC §3 that this server does not offer yet, by their topic alone: asked about them, the built-in
 * model says plainly that the account has no such tool instead of searching the memories. A family leaves this
 * list when it joins FAMILIES.
 */
export const UPCOMING_FAMILIES: readonly FamilyLanguage[] = [
  { name: 'email', topic: { about: 'your mail', keywords: ['email', 'e-mail', 'mail', 'inbox', 'mailbox'] } },
];
