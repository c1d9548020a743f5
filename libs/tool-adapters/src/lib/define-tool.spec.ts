import { z } from 'zod';
import { LIMITS, createMemorySchema } from '@assistant/contracts';
import { defineTool, parseToolInput, ToolInputError } from './define-tool';
import { allowedTools, withheldTools } from './tool-registry';
import { memoryTools } from './memory/memory-tools';

describe('defineTool and the registry', () => {
  it('refuses names that are not <family>_<verb>', () => {
    const base = {
      description: 'd',
      input: z.object({}),
      scope: 'read:web' as const,
      handler: async () => null,
    };
    expect(() => defineTool({ ...base, name: 'Fetch' })).toThrow(/snake_case/);
    expect(() => defineTool({ ...base, name: 'web' })).toThrow(/snake_case/);
    expect(defineTool({ ...base, name: 'web_fetch' }).side_effects).toBe(false);
  });

  it('keeps only the tools the scopes allow, in a stable order', () => {
    const tools = memoryTools({ save: async () => ({ id: 'm', content: 'c' }), recall: async () => [] });
    expect(allowedTools(tools, ['read:memories', 'write:memories']).map((t) => t.name)).toEqual([
      'memory_save',
      'memory_search',
    ]);
    expect(allowedTools(tools, ['read:memories']).map((t) => t.name)).toEqual(['memory_search']);
    expect(
      allowedTools(tools, ['read:memories', 'write:memories'], ['memory_save']).map((t) => t.name),
    ).toEqual(['memory_save']);
  });

  it('says why each other tool is withheld: a scope the token lacks first, else the query left it out', () => {
    const tools = memoryTools({ save: async () => ({ id: 'm', content: 'c' }), recall: async () => [] });
    expect(withheldTools(tools, ['read:memories', 'write:memories'], ['memory_search'])).toEqual([
      { name: 'memory_save', reason: 'not_requested' },
    ]);
    expect(withheldTools(tools, ['read:memories'], ['memory_search'])).toEqual([
      { name: 'memory_save', reason: 'scope', scope: 'write:memories' },
    ]);
    expect(withheldTools(tools, ['read:memories', 'write:memories'])).toEqual([]);
  });

  it('holds memory_save to the limit of POST /memories, and says what is wrong in plain words', () => {
    const [save, search] = memoryTools({
      save: async () => ({ id: 'm', content: 'c' }),
      recall: async () => [],
    });
    const longest = 'a'.repeat(LIMITS.maxMemoryChars);
    expect(parseToolInput(save, { content: ` ${longest} ` })).toEqual({ content: longest });
    expect(createMemorySchema.safeParse({ content: longest }).success).toBe(true);
    const tooLong = { content: `${longest}a` };
    expect(createMemorySchema.safeParse(tooLong).success).toBe(false);
    expect(() => parseToolInput(save, tooLong)).toThrow(
      new ToolInputError(`content must be at most ${LIMITS.maxMemoryChars} characters`),
    );
    // A schema message that does not name its field gets the field in front.
    expect(() => parseToolInput(search, { query: 'x', limit: 'many' })).toThrow(/^limit: /);
  });
});
