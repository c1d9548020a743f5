import { z } from 'zod';
import { defineTool, memoryTools, type MemoryDriver } from '@assistant/tool-adapters';
import { LIMITS, type QueryEventBody } from '@assistant/contracts';
import { builtinModel } from '../models/builtin/builtin-model';
import { runQuery, toolCallsOf, type RunInput } from './run-query';

function memoryDriver(): MemoryDriver & { saved: string[] } {
  const saved: string[] = [];
  return {
    saved,
    save: async (_user, { content }) => {
      saved.push(content);
      return { id: `mem_${saved.length}`, content };
    },
    recall: async (_user, text) =>
      saved
        .filter((c) =>
          text
            .toLowerCase()
            .split(/\W+/)
            .some((w) => w.length > 3 && c.toLowerCase().includes(w)),
        )
        .map((content, i) => ({ id: `mem_${i}`, content, created_at: '2026-01-01T00:00:00Z' })),
  };
}

async function run(text: string, overrides: Partial<RunInput> = {}): Promise<QueryEventBody[]> {
  const events: QueryEventBody[] = [];
  await runQuery(
    {
      queryId: 'qry_1',
      discussionId: 'dsc_1',
      messageId: 'msg_1',
      userId: 'usr_1',
      modelName: 'builtin',
      model: builtinModel({ pacingMs: 0 }),
      text,
      history: [],
      recalled: [],
      tools: memoryTools(memoryDriver()),
      signal: new AbortController().signal,
      ...overrides,
    },
    (event) => {
      events.push(event);
    },
  );
  return events;
}

describe('runQuery with the built-in model', () => {
  it('saves a memory through the tool loop and confirms it, with one terminal event last', async () => {
    const driver = memoryDriver();
    const events = await run("remember that my sister's birthday is on March 3", {
      tools: memoryTools(driver),
    });
    expect(events.map((e) => e.type)).toEqual([
      'query.created',
      'tool_call.started',
      'memory.saved',
      'tool_call.completed',
      ...Array(11).fill('output_text.delta'),
      'query.completed',
    ]);
    expect(driver.saved).toEqual(["My sister's birthday is on March 3"]);
    const completed = events.at(-1);
    expect(completed).toMatchObject({
      type: 'query.completed',
      text: "OK, I'll remember that your sister's birthday is on March 3.",
    });
    expect(toolCallsOf(events)).toEqual([
      expect.objectContaining({
        tool: 'memory_save',
        status: 'ok',
        arguments: { content: "My sister's birthday is on March 3" },
      }),
    ]);
  });

  it('explains what it lacks when the token does not allow the tool', async () => {
    const events = await run('remember that the gate code is 4711', {
      tools: [],
      withheldTools: [{ name: 'memory_save', reason: 'scope', scope: 'write:memories' }],
    });
    expect(events.at(-1)).toMatchObject({
      type: 'query.completed',
      text: expect.stringContaining('the token needs the write:memories scope'),
    });
  });

  it("says that the query's own tool list left the tool out, when it did", async () => {
    const [, search] = memoryTools(memoryDriver());
    const events = await run('remember that the gate code is 4711', {
      tools: [search],
      withheldTools: [{ name: 'memory_save', reason: 'not_requested' }],
    });
    const text = (events.at(-1) as { text?: string }).text;
    expect(text).toContain("the query's list of tools leaves it out");
    expect(text).not.toContain('scope');
  });

  it('fails one tool call, not the run, when a handler throws or hangs', async () => {
    const broken = defineTool({
      name: 'memory_save',
      description: 'broken',
      input: z.object({ content: z.string() }),
      scope: 'write:memories',
      handler: () => new Promise(() => undefined),
    });
    const events = await run('remember that x is y', { tools: [broken], limits: { toolTimeoutMs: 50 } });
    expect(events.find((e) => e.type === 'tool_call.completed')).toMatchObject({
      status: 'error',
      error: expect.stringContaining('longer than'),
    });
    expect(events.at(-1)).toMatchObject({
      type: 'query.completed',
      text: expect.stringContaining("I couldn't do that"),
    });
  });

  it('answers in one plain sentence when a memory is longer than the limit POST /memories has', async () => {
    const driver = memoryDriver();
    const fits = 'a'.repeat(LIMITS.maxMemoryChars - 1);
    await run(`remember that ${fits}`, { tools: memoryTools(driver) });
    expect(driver.saved).toEqual([`A${fits.slice(1)}`]);

    const events = await run(`remember that ${'a'.repeat(LIMITS.maxMemoryChars + 1)}`, {
      tools: memoryTools(driver),
    });
    expect(driver.saved).toHaveLength(1);
    const limit = `content must be at most ${LIMITS.maxMemoryChars} characters`;
    expect(events.find((e) => e.type === 'tool_call.completed')).toMatchObject({
      status: 'error',
      error: limit,
    });
    expect(events.at(-1)).toMatchObject({ type: 'query.completed', text: `I couldn't do that: ${limit}.` });
  });

  it('ends with query.incomplete when cancelled', async () => {
    const controller = new AbortController();
    const events: QueryEventBody[] = [];
    const done = runQuery(
      {
        queryId: 'qry_1',
        discussionId: 'dsc_1',
        messageId: 'msg_1',
        userId: 'usr_1',
        modelName: 'builtin',
        model: builtinModel({ pacingMs: 20 }),
        text: 'hello',
        history: [],
        recalled: [],
        tools: [],
        signal: controller.signal,
      },
      (event) => {
        events.push(event);
        if (event.type === 'output_text.delta' && events.length === 3) controller.abort();
      },
    );
    await done;
    expect(events.at(-1)).toEqual({ type: 'query.incomplete', reason: 'cancelled' });
    expect(events.filter((e) => e.type.startsWith('query.') && e.type !== 'query.created')).toHaveLength(1);
  });
});
