import { joinAnd } from '@assistant/tool-kit';
import type { FileEntry, FoundFile, ReadFile } from './files.driver';

const SHOWN = 10;
const READ_CHARS = 400;

/** What the built-in model says once a files tool has answered. */
export function filesAnswer(tool: string, output: unknown): string {
  switch (tool) {
    case 'files_list': {
      const { path, entries } = output as { path: string; entries: FileEntry[] };
      if (entries.length === 0) return `${path === '.' ? 'Your files folder' : path} is empty.`;
      const names = entries.slice(0, SHOWN).map((e) => (e.type === 'folder' ? `${e.path}/` : e.path));
      const more = entries.length > SHOWN ? ` and ${entries.length - SHOWN} more` : '';
      return `In ${path === '.' ? 'your files' : path}: ${joinAnd(names)}${more}.`;
    }
    case 'files_search': {
      const { query, files } = output as { query: string; files: FoundFile[] };
      if (files.length === 0) return `I found no files about “${query}”.`;
      const listed = files.slice(0, SHOWN).map((f) => (f.line ? `${f.path} (“${f.line}”)` : f.path));
      return `I found ${files.length === 1 ? 'one file' : `${files.length} files`}: ${joinAnd(listed)}.`;
    }
    case 'files_read': {
      const file = output as ReadFile;
      const text = file.text.trim();
      if (!text) return `${file.path} is empty.`;
      const cut = text.length > READ_CHARS || file.truncated;
      return `${file.path} says: ${text.slice(0, READ_CHARS)}${cut ? ' …' : ''}`;
    }
    case 'files_write':
      return `I saved ${(output as FileEntry).path}.`;
    case 'files_move':
      return `Done: it is now ${(output as FileEntry).path}.`;
    case 'files_delete':
      return `I deleted ${(output as { deleted: string }).deleted}.`;
    default:
      return `Done (${tool}).`;
  }
}
