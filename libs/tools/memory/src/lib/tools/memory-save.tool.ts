import { z } from 'zod';
import { memoryContentSchema } from '@assistant/contracts';
import { defineTool } from '@assistant/tool-kit';
import type { MemoryDriver } from '../memory.driver';

export const memorySave = defineTool<MemoryDriver>()({
  name: 'memory_save',
  description:
    'Save a fact about the user for later (a birthday, a preference, where something is). Write it as one short sentence in the words the user used.',
  // The same schema, so the same limit, as POST /memories (SPEC §7).
  input: z.object({ content: memoryContentSchema.describe('The fact, as one sentence') }),
  scope: 'write:memories',
  // It changes only the assistant's own notes, which the user sees and edits: no confirmation.
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  handler: async ({ content }, context) => {
    // A call that already timed out or was cancelled must not save behind the user's back.
    context.signal.throwIfAborted();
    const saved = await context.driver.save(context.userId, { content, discussionId: context.discussionId });
    context.notify({ type: 'memory.saved', memory_id: saved.id, content: saved.content });
    return { memory_id: saved.id, content: saved.content };
  },
});
