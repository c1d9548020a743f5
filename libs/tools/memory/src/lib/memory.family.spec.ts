import { LIMITS, createMemorySchema } from '@assistant/contracts';
import { misreadExamples, parseToolInput, ToolInputError, type IntentContext } from '@assistant/tool-kit';
import { memoryFamily } from './memory.family';
import { memorySave } from './tools/memory-save.tool';
import { memorySearch } from './tools/memory-search.tool';

describe('the memory family', () => {
  it('tells a language model when to use each of its tools the run has, and only those', () => {
    const both = memoryFamily.instructions?.(['memory_save', 'memory_search']) ?? '';
    expect(both).toMatch(/Use memory_save when .*\nUse memory_search when /);
    expect(memoryFamily.instructions?.(['memory_search'])).not.toContain('memory_save');
  });

  it('holds memory_save to the limit of POST /memories, and says what is wrong in plain words', () => {
    const longest = 'a'.repeat(LIMITS.maxMemoryChars);
    expect(parseToolInput(memorySave, { content: ` ${longest} ` })).toEqual({ content: longest });
    expect(createMemorySchema.safeParse({ content: longest }).success).toBe(true);
    const tooLong = { content: `${longest}a` };
    expect(createMemorySchema.safeParse(tooLong).success).toBe(false);
    expect(() => parseToolInput(memorySave, tooLong)).toThrow(
      new ToolInputError(`content must be at most ${LIMITS.maxMemoryChars} characters`),
    );
    expect(() => parseToolInput(memorySearch, { query: 'x', limit: 'many' })).toThrow(/^limit: /);
  });

  it('saves through its driver and tells the run what it saved', async () => {
    const notices: unknown[] = [];
    const saved: string[] = [];
    const driver = {
      save: async (_user: string, input: { content: string }) => {
        saved.push(input.content);
        return { id: 'mem_1', content: input.content };
      },
      recall: async () => [],
    };
    const output = await memorySave.handler(
      { content: 'Sam likes tea' },
      {
        userId: 'usr_1',
        discussionId: null,
        timeZone: 'UTC',
        driver,
        signal: new AbortController().signal,
        notify: (n) => notices.push(n),
      },
    );
    expect(output).toEqual({ memory_id: 'mem_1', content: 'Sam likes tea' });
    expect(saved).toEqual(['Sam likes tea']);
    expect(notices).toEqual([{ type: 'memory.saved', memory_id: 'mem_1', content: 'Sam likes tea' }]);
  });

  it('understands every example of its intents', () => {
    expect(misreadExamples(memoryFamily.intents!)).toEqual([]);
  });

  it('strips a fact’s final stops in one pass, however many stops are inside it', () => {
    const save = memoryFamily.intents!.intents.find((intent) => intent.intent === 'memory.save')!;
    const fact = `a${'.'.repeat(15_000)}b`;
    const started = performance.now();
    const context: IntentContext = {
      now: new Date(),
      timeZone: 'UTC',
      when: () => undefined,
      known: () => undefined,
      last: () => undefined,
    };
    const action = save.act({ text: `${fact}!!` }, context);
    expect(action).toMatchObject({ input: { content: `A${fact.slice(1)}` } });
    // Tried from each stop, a search for the final run of stops took the run's length squared (~300 ms here).
    expect(performance.now() - started).toBeLessThan(50);
  });

  it('answers in the second person', () => {
    expect(memoryFamily.answer('memory_save', { content: 'My sister likes tea' })).toBe(
      "OK, I'll remember that your sister likes tea.",
    );
    expect(memoryFamily.answer('memory_search', { memories: [] })).toMatch(/haven't told me/);
  });
});
