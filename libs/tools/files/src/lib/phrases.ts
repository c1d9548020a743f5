import type { PhraseRule } from '@assistant/tool-kit';

/** A file name as people say it: a path ending in an extension ("notes/todo.txt"). */
const FILE = '([\\w./ -]*\\w\\.\\w{1,8})';

export const filesPhrases: PhraseRule[] = [
  {
    intent: 'files.search',
    examples: [
      'find my notes about taxes',
      'search for files about the lease',
      'look for documents mentioning Sam',
    ],
    patterns: [
      /^(?:find|search for|look for)\s+(?:my\s+|the\s+)?(?:notes?|files?|documents?)\s+(?:about|on|mentioning|with)\s+(.+?)\??$/i,
    ],
    act: (m) => ({ kind: 'tool', tool: 'files_search', input: { query: m[1] } }),
    offers: { tool: 'files_search', can: 'find your files ("find my notes about …")' },
  },
  {
    intent: 'files.list',
    examples: [
      "what's in my documents folder?",
      'what is in my notes folder',
      'list my files',
      'show my files',
    ],
    patterns: [/^(?:what'?s|what is) in my (.+?) folder\??$/i, /^(?:list|show)(?: me)? my files\??$/i],
    act: (m) => ({ kind: 'tool', tool: 'files_list', input: { path: m[1] ?? '.' } }),
    offers: { tool: 'files_list', can: 'list a folder ("what\'s in my … folder?")' },
  },
  {
    intent: 'files.read',
    examples: ['read notes/todo.txt', 'open the file shopping.txt', 'show me letters/landlord.md'],
    patterns: [new RegExp(`^(?:read|open|show me)\\s+(?:the file\\s+)?${FILE}$`, 'i')],
    act: (m) => ({ kind: 'tool', tool: 'files_read', input: { path: m[1] } }),
    offers: { tool: 'files_read', can: 'read a text file ("read notes/todo.txt")' },
  },
  {
    intent: 'files.write',
    examples: ['write "milk and eggs" to shopping.txt', 'put buy stamps into notes/todo.txt'],
    patterns: [new RegExp(`^(?:write|put)\\s+"?(.+?)"?\\s+(?:in|into|to)\\s+(?:the file\\s+)?${FILE}$`, 'i')],
    act: (m) => ({ kind: 'tool', tool: 'files_write', input: { path: m[2], text: `${m[1]}\n` } }),
    offers: { tool: 'files_write', can: 'write a file, once you confirm ("write "…" to notes.txt")' },
  },
  {
    intent: 'files.delete',
    examples: ['delete old/draft.txt', 'delete the file shopping.txt'],
    patterns: [new RegExp(`^delete\\s+(?:the file\\s+)?${FILE}$`, 'i')],
    act: (m) => ({ kind: 'tool', tool: 'files_delete', input: { path: m[1] } }),
    offers: { tool: 'files_delete', can: 'delete a file, once you confirm' },
  },
];
