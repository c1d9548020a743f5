import type { BuiltinAction, FamilyIntents, IntentContext, Learned } from '@assistant/tool-kit';
import type { FileEntry, FoundFile, ReadFile } from './files.driver';

/**
 * What the built-in model understands of files: sentence templates with slots (see the tool kit's
 * `intents.ts`). A file the user names in words ("my packing list") is looked up among the names the account's
 * files have shown (`packing-list.txt`); a new one is named from the words (`packing-list.txt`).
 */

/** Words that say a name is a path already: an extension or a folder. */
const LOOKS_LIKE_PATH = /[/\\]|\.\w{1,8}$/;

/** "packing list" → `packing-list.txt`: a new file's name from the words for it. */
export function fileNameOf(words: string): string {
  if (LOOKS_LIKE_PATH.test(words)) return words;
  const slug = words
    .toLowerCase()
    .replace(/\b(?:file|note|document|doc)\b/g, '')
    .trim()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  return `${slug || 'note'}.txt`;
}

/** The file words name: a path as given, a known file, or (reading) undefined. */
function knownFile(words: string, context: IntentContext): string | undefined {
  if (LOOKS_LIKE_PATH.test(words)) return words;
  return (
    context.known('file', words.replace(/\b(?:file|note|notes|document|doc|list)\b$/i, '').trim() || words) ??
    context.known('file', words)
  );
}

/** Reading a file by name, or looking for it when no known file has that name. */
function readOrFind(words: string | undefined, context: IntentContext): BuiltinAction | undefined {
  if (!words) return undefined;
  const path = knownFile(words, context);
  return path
    ? { kind: 'tool', tool: 'files_read', input: { path } }
    : { kind: 'tool', tool: 'files_search', input: { query: words } };
}

const OVERWRITE =
  '(overwrite|overwriting|replace|replacing|replace it|overwrite it|and overwrite [it]|even if it exists|over the old one)';

export const filesIntents: FamilyIntents = {
  rules: {
    doc: '(file|files|note|notes|document|documents|doc|docs|list)',
    says: '(that says|saying|which says|with|containing|with the text|that reads|reading|:)',
  },
  intents: [
    {
      intent: 'files.list',
      templates: [
        '<whats> in <my> {folder} folder',
        '(list|show) [me] <whats> in <my> {folder} folder',
        '(list|show|see|view|open) [me] [the] [files in] <my> {folder} folder',
        '(list|show|see|view) [me] <my> (files|documents|docs|folder)',
        'what (files|documents|docs) do (i|we) have',
        '<whats> in <my> (files|documents|docs|folder)',
        'what (files|documents|docs) (are|is) (there|in my folder)',
      ],
      examples: [
        "what's in my documents folder?",
        'what is in my notes folder',
        'list my files',
        'show my files',
      ],
      act: (slots) => ({ kind: 'tool', tool: 'files_list', input: { path: slots['folder'] ?? '.' } }),
      offers: { tool: 'files_list', can: 'list a folder ("what\'s in my … folder?")' },
    },
    {
      intent: 'files.search',
      templates: [
        '(find|search [for]|look for|locate|get) [me] [<my>] <doc> (about|on|mentioning|with|regarding|containing|named|called|that mention|that mentions) {topic}',
        '(search|look through|go through) <my> (files|documents|docs|notes) for {topic}',
        'do (i|we) have (a|any) <doc> (about|on|called|named|mentioning) {topic}',
        "(where is|where's|wheres|find) <my> {topic} (file|document|doc|note|pdf)",
      ],
      examples: [
        'find my notes about taxes',
        'search for files about the lease',
        'look for documents mentioning Sam',
      ],
      act: (slots) =>
        slots['topic'] ? { kind: 'tool', tool: 'files_search', input: { query: slots['topic'] } } : undefined,
      offers: { tool: 'files_search', can: 'find your files ("find my notes about …")' },
    },
    {
      intent: 'files.read',
      templates: [
        '(read|open|show|show me|cat|display|print) [me] [the] [file|note|document] {file}',
        '<whats> (on|in) <my> {file} (file|list|note|document|doc)',
        '(read|open|show) [me] <my> {file} (file|list|note|document|doc)',
        '<whats> (on|in) <my> {file}',
      ],
      examples: [
        'read notes/todo.txt',
        'open the file shopping.txt',
        'show me letters/landlord.md',
        "what's on my packing list",
      ],
      act: (slots, context) => {
        const words = slots['file'];
        // A pronoun or a web address is not a file's name ("read it" with no file before, "open https://…").
        if (!words || /^(?:it|that|this|them|one)$|:\/\//i.test(words)) return undefined;
        return readOrFind(words, context);
      },
      offers: { tool: 'files_read', can: 'read a text file ("read notes/todo.txt")' },
    },
    {
      intent: 'files.write',
      templates: [
        '(write|put|add|save|append) {text} (in|into|to) [the] [file|note|document] {file}',
        '(save|create|make|write|start|add) [a|an|the] [new] (note|file|document|doc|list) (called|named|titled) {file} <says> {text}',
        '(save|create|make|write) [a|an|the] [new] (note|file|document|doc) <says> {text} (called|named|as|in|to) {file}',
      ],
      examples: [
        'write "milk and eggs" to shopping.txt',
        'put buy stamps into notes/todo.txt',
        'save a note called packing list that says passport, charger',
      ],
      act: (slots, context) => {
        const words = slots['file'];
        const text = slots['text'];
        if (!words || !text) return undefined;
        const path = knownFile(words, context) ?? fileNameOf(words);
        return { kind: 'tool', tool: 'files_write', input: { path, text: `${text}\n` } };
      },
      offers: { tool: 'files_write', can: 'write a file, once you confirm ("write "…" to notes.txt")' },
    },
    {
      // The same as files.write, with the user's word that an existing file may go.
      intent: 'files.overwrite',
      templates: [
        'overwrite {file} with {text}',
        `(write|save|put) {text} (in|into|to) [the] [file|note] {file} [and] ${OVERWRITE}`,
        `${OVERWRITE} [the] [file|note] {file} with {text}`,
        `(save|create|write) [a|an|the] [new] (note|file|document) (called|named) {file} <says> {text} [and] ${OVERWRITE}`,
      ],
      examples: ['overwrite shopping.txt with bread', 'write eggs to shopping.txt and overwrite it'],
      act: (slots, context) => {
        const words = slots['file'];
        const text = slots['text'];
        if (!words || !text) return undefined;
        const path = knownFile(words, context) ?? fileNameOf(words);
        return { kind: 'tool', tool: 'files_write', input: { path, text: `${text}\n`, overwrite: true } };
      },
    },
    {
      intent: 'files.delete',
      templates: ['(delete|remove|trash|erase|bin) [the] [file|note|document] {file}'],
      examples: ['delete old/draft.txt', 'delete the file shopping.txt'],
      act: (slots, context) => {
        const words = slots['file'];
        const path = words ? knownFile(words, context) : undefined;
        return path ? { kind: 'tool', tool: 'files_delete', input: { path } } : undefined;
      },
      offers: { tool: 'files_delete', can: 'delete a file, once you confirm' },
    },
  ],
  learn: (tool, output) => {
    const entry = (path: string): Learned => ({
      kind: 'file',
      value: path,
      label: path.replace(/\.\w{1,8}$/, '').replace(/[-_/]+/g, ' '),
    });
    switch (tool) {
      case 'files_list':
        return ((output as { entries?: FileEntry[] }).entries ?? [])
          .filter((e) => e.type === 'file')
          .map((e) => entry(e.path));
      case 'files_search':
        return ((output as { files?: FoundFile[] }).files ?? []).map((f) => entry(f.path));
      case 'files_read':
      case 'files_write':
        return [entry((output as ReadFile | FileEntry).path)];
      default:
        return [];
    }
  },
};
