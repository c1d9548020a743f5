import { z } from 'zod';
import { defineTool } from '@assistant/tool-kit';
import type { MemoryDriver } from '../memory.driver';

export const memorySearch = defineTool<MemoryDriver>()({
  name: 'memory_search',
  description: "Search the user's saved memories by words; returns the best matches first.",
  input: z.object({
    query: z.string().trim().min(1).max(500).describe('Words to look for'),
    limit: z.number().int().min(1).max(20).default(5),
  }),
  scope: 'read:memories',
  annotations: { openWorldHint: false },
  handler: async ({ query, limit }, context) => ({
    memories: await context.driver.recall(context.userId, query, limit),
  }),
});
