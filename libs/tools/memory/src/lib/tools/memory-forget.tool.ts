import { z } from 'zod';
import { defineTool } from '@assistant/tool-kit';
import type { MemoryDriver } from '../memory.driver';

export const memoryForget = defineTool<MemoryDriver>()({
  name: 'memory_forget',
  description:
    "Forget (delete) one of the user's saved memories, by its id from memory_search. Only when the user asks to forget it; when several memories match, ask which one first.",
  input: z.object({ id: z.string().trim().min(1).max(100).describe('The memory’s id, from memory_search') }),
  scope: 'write:memories',
  // Like memory_save, it changes only the assistant's own notes, which the user sees and edits (DELETE
  // /memories/{id} does the same): no confirmation. Which memory, when several match, is asked in the answer.
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  handler: async ({ id }, context) => {
    context.signal.throwIfAborted();
    // The driver deletes the caller's own memory only: another account's id is no memory of theirs.
    if (!(await context.driver.forget(context.userId, id))) throw new Error(`you have no memory ${id}`);
    return { forgotten: id };
  },
});
