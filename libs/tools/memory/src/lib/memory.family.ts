import { defineFamily } from '@assistant/tool-kit';
import type { MemoryDriver } from './memory.driver';
import { memorySave } from './tools/memory-save.tool';
import { memorySearch } from './tools/memory-search.tool';
import { memoryForget } from './tools/memory-forget.tool';
import { memoryIntents } from './intents';
import { memoryAnswer } from './answers';

/** The assistant's own notes about the user. No provider: the server gives its storage as the driver. */
export const memoryFamily = defineFamily<MemoryDriver>({
  name: 'memory',
  description: 'Facts the user asked the assistant to remember, recalled when they matter.',
  topic: { about: 'what you told me', keywords: ['remember', 'memory', 'memories'] },
  instructions: (tools) =>
    [
      ...(tools.includes(memorySave.name)
        ? ['Use memory_save when the user tells you something worth remembering about them.']
        : []),
      ...(tools.includes(memorySearch.name)
        ? ['Use memory_search when an answer may be in what the user told you before.']
        : []),
      ...(tools.includes(memoryForget.name)
        ? [
            'Use memory_forget only when the user asks you to forget something; if several memories match, ask which.',
          ]
        : []),
    ].join('\n'),
  providers: [],
  tools: [memorySave, memorySearch, memoryForget],
  intents: memoryIntents,
  answer: memoryAnswer,
});
