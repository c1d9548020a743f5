import { z } from 'zod';

/**
 * The complete list of scopes (SPEC §2). A scope is `action:tool`; every route and every tool
 * names exactly one scope that a token must hold to use it.
 */
export const SCOPE_DESCRIPTIONS = {
  'read:account': 'See your account',
  'write:account': 'Manage personal tokens, integrations and devices',
  'read:discussions': 'Read your discussions and their messages',
  'write:discussions': 'Create, rename and delete discussions',
  'read:memories': 'Read and search your memories',
  'write:memories': 'Create, edit and delete memories, and let the assistant save memories',
  'write:queries': 'Ask the assistant questions and follow its answers',
  'read:emails': 'Search and read your mail',
  'write:emails': 'Send mail and write drafts',
  'read:calendar': 'List your calendar events',
  'write:calendar': 'Create, change and delete calendar events',
  'read:files': 'List, search and read your files',
  'write:files': 'Write, move and delete your files',
  'read:web': 'Fetch web pages and search the web',
  'read:home': 'Read the state of your smart-home devices',
  'write:home': 'Change your smart-home devices',
  'read:tools': 'See the tool catalogue and your connections, and use custom tools that change nothing',
  'write:tools': 'Add, change and remove connections, and use custom tools that change things',
} as const;

export type Scope = keyof typeof SCOPE_DESCRIPTIONS;

export const ALL_SCOPES = Object.keys(SCOPE_DESCRIPTIONS) as Scope[];

/**
 * Scopes that only the account holder may hold; a third-party app is never granted them: the account itself
 * (tokens, devices, apps), and its connections — which servers its tools reach, and as whom (docs/security.md,
 * "Connections and third-party apps").
 */
export const FIRST_PARTY_ONLY_SCOPES: readonly Scope[] = ['write:account', 'write:tools'];

export const scopeSchema = z.enum(ALL_SCOPES as [Scope, ...Scope[]]);

export function isScope(value: string): value is Scope {
  return Object.prototype.hasOwnProperty.call(SCOPE_DESCRIPTIONS, value);
}
