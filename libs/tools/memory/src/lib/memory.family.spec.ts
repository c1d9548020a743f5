import { LIMITS, createMemorySchema } from '@assistant/contracts';
import { misreadExamples, parseToolInput, ToolInputError, type IntentContext } from '@assistant/tool-kit';
import { memoryFamily } from './memory.family';
import { memorySave } from './tools/memory-save.tool';
import { memorySearch } from './tools/memory-search.tool';
import { memoryForget } from './tools/memory-forget.tool';

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
      forget: async () => false,
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

  it('forgets through its driver as the caller, and says so when the caller has no memory of that id', async () => {
    const owned = new Map([['mem_1', 'usr_1']]);
    const driver = {
      save: async () => ({ id: '', content: '' }),
      recall: async () => [],
      // As the server's storage: only the owner's id deletes anything.
      forget: async (userId: string, id: string) => owned.get(id) === userId && owned.delete(id),
    };
    const as = (userId: string) => ({
      userId,
      discussionId: null,
      timeZone: 'UTC',
      driver,
      signal: new AbortController().signal,
      notify: () => undefined,
    });
    await expect(memoryForget.handler({ id: 'mem_1' }, as('usr_2'))).rejects.toThrow(
      'you have no memory mem_1',
    );
    expect(owned.has('mem_1')).toBe(true);
    await expect(memoryForget.handler({ id: 'mem_1' }, as('usr_1'))).resolves.toEqual({ forgotten: 'mem_1' });
    expect(owned.has('mem_1')).toBe(false);
    expect(memoryForget.scope).toBe('write:memories');
  });

  it('forgets the one memory that matches, and asks which when several do', () => {
    const forget = memoryFamily.intents!.intents.find((intent) => intent.intent === 'memory.forget')!;
    const context: IntentContext = {
      now: new Date(),
      timeZone: 'UTC',
      when: () => undefined,
      known: () => undefined,
      last: () => undefined,
    };
    const action = forget.act({ topic: 'locker code' }, context);
    if (action?.kind !== 'tool' || !action.then) throw new Error('no search before forgetting');
    expect(action.input).toEqual({ query: 'locker code', limit: 5 });
    const one = { memories: [{ id: 'mem_1', content: 'My locker code is 4711' }] };
    expect(action.then(one)).toEqual({ kind: 'tool', tool: 'memory_forget', input: { id: 'mem_1' } });
    const two = {
      memories: [
        { id: 'mem_1', content: 'My locker code is 4711' },
        { id: 'mem_2', content: 'The gym locker code is 1234' },
      ],
    };
    expect(action.then(two)).toMatchObject({
      kind: 'text',
      text: expect.stringMatching(/^Several memories match/),
    });
    // Only one holds every word asked about: that one, without asking.
    const gym = forget.act({ topic: 'gym locker' }, context);
    if (gym?.kind !== 'tool' || !gym.then) throw new Error('no search before forgetting');
    expect(gym.then(two)).toEqual({ kind: 'tool', tool: 'memory_forget', input: { id: 'mem_2' } });
    expect(action.then({ memories: [] })).toMatchObject({
      kind: 'text',
      text: 'I have nothing about “locker code” to forget.',
    });
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
