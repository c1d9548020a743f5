import { z } from 'zod';
import { memoryContentSchema } from '@assistant/contracts';
import { defineTool, type ToolDefinition } from '../define-tool';

/** How the memory tools reach the user's memories; the server implements it over its storage. */
export interface MemoryDriver {
  save(
    userId: string,
    input: { content: string; discussionId: string | null },
  ): Promise<{ id: string; content: string }>;
  /** The most relevant memories for a text, best first (any of its words, ranked). */
  recall(
    userId: string,
    text: string,
    limit: number,
  ): Promise<Array<{ id: string; content: string; created_at: string }>>;
}

export function memoryTools(driver: MemoryDriver): ToolDefinition[] {
  return [
    defineTool({
      name: 'memory_save',
      description:
        'Save a fact about the user for later (a birthday, a preference, where something is). Write it as one short sentence in the words the user used.',
      // The same schema, so the same limit, as POST /memories (SPEC §7).
      input: z.object({ content: memoryContentSchema.describe('The fact, as one sentence') }),
      scope: 'write:memories',
      handler: async ({ content }, context) => {
        // A call that already timed out or was cancelled must not save behind the user's back.
        context.signal.throwIfAborted();
        const saved = await driver.save(context.userId, { content, discussionId: context.discussionId });
        context.notify({ type: 'memory.saved', memory_id: saved.id, content: saved.content });
        return { memory_id: saved.id, content: saved.content };
      },
    }),
    defineTool({
      name: 'memory_search',
      description: "Search the user's saved memories by words; returns the best matches first.",
      input: z.object({
        query: z.string().trim().min(1).max(500).describe('Words to look for'),
        limit: z.number().int().min(1).max(20).default(5),
      }),
      scope: 'read:memories',
      handler: async ({ query, limit }, context) => ({
        memories: await driver.recall(context.userId, query, limit),
      }),
    }),
  ];
}
