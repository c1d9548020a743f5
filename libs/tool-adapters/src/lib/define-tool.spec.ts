import { z } from 'zod';
import { defineTool } from './define-tool';
import { allowedTools } from './tool-registry';
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
});
