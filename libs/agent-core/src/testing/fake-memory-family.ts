/**
 * A stand-in for the memory family (libs/tools/memory), which agent-core may not import: two tools with the
 * memory family's names and scopes, phrasings and answers, over an in-memory list. Tests only.
 */
import { z } from 'zod';
import { connectTool, defineFamily, defineTool, type ConnectedTool } from '@assistant/tool-kit';

export interface FakeMemory {
  saved: string[];
}

const save = defineTool<FakeMemory>()({
  name: 'memory_save',
  description: 'Save a fact',
  input: z.object({ content: z.string().trim().min(1).max(100, 'content must be at most 100 characters') }),
  scope: 'write:memories',
  handler: async ({ content }, context) => {
    context.driver.saved.push(content);
    const id = `mem_${context.driver.saved.length}`;
    context.notify({ type: 'memory.saved', memory_id: id, content });
    return { memory_id: id, content };
  },
});

const search = defineTool<FakeMemory>()({
  name: 'memory_search',
  description: 'Search facts',
  input: z.object({ query: z.string(), limit: z.number().default(3) }),
  scope: 'read:memories',
  handler: async ({ query }, context) => ({
    memories: context.driver.saved
      .filter((fact) =>
        query.split(/\W+/).some((w) => w.length > 3 && fact.toLowerCase().includes(w.toLowerCase())),
      )
      .map((content) => ({ content })),
  }),
});

export const fakeMemoryFamily = defineFamily<FakeMemory>({
  name: 'memory',
  description: 'facts',
  topic: { about: 'what you told me', keywords: ['memory'] },
  providers: [],
  tools: [save, search],
  phrases: [
    {
      intent: 'memory.save',
      examples: ['remember that x is y'],
      patterns: [/^remember(?: that)? (.+)$/i],
      act: (m) => ({ kind: 'tool', tool: 'memory_save', input: { content: m[1] } }),
      offers: { tool: 'memory_save', can: 'remember what you tell me' },
    },
    {
      intent: 'memory.search',
      fallback: true,
      examples: ['when is the party?'],
      patterns: [/^((?:when|where|who|what)\b.+?)\??$/i],
      act: (m) => ({ kind: 'tool', tool: 'memory_search', input: { query: m[1] } }),
      offers: { tool: 'memory_search', can: 'recall it later' },
    },
  ],
  answer: (tool, output) => {
    const result = output as { content?: string; memories?: Array<{ content: string }> };
    if (tool === 'memory_save') return `Saved: ${result.content}.`;
    return result.memories?.length
      ? result.memories.map((m) => m.content).join(' ')
      : 'Nothing saved about that.';
  },
});

/** The fake family's tools bound to a fresh list, as the server's catalogue would hand them to a run. */
export function fakeMemoryTools(memory: FakeMemory = { saved: [] }): ConnectedTool[] {
  return fakeMemoryFamily.tools.map((tool) => connectTool(tool, memory));
}
