import { z } from 'zod';
import { connectTool, defineTool } from '@assistant/tool-kit';
import type { QueryEventBody } from '@assistant/contracts';
import { builtinModel } from '../models/builtin/builtin-model';
import { fakeMemoryFamily, fakeMemoryTools, type FakeMemory } from '../../testing/fake-memory-family';
import { runBuiltin } from '../../testing/run-builtin';
import { runQuery, toolCallsOf, type RunInput } from './run-query';

const model = (pacingMs = 0) => builtinModel({ pacingMs, families: [fakeMemoryFamily] });

const run = (text: string, overrides: Partial<RunInput> = {}) =>
  runBuiltin(text, [fakeMemoryFamily], { tools: fakeMemoryTools(), ...overrides });

describe('runQuery with the built-in model', () => {
  it('saves a memory through the tool loop and confirms it, with one terminal event last', async () => {
    const memory: FakeMemory = { saved: [] };
    const events = await run("remember that my sister's birthday is on March 3", {
      tools: fakeMemoryTools(memory),
    });
    expect(events.map((e) => e.type)).toEqual([
      'query.created',
      'tool_call.started',
      'memory.saved',
      'tool_call.completed',
      ...Array(8).fill('output_text.delta'),
      'query.completed',
    ]);
    expect(memory.saved).toEqual(["my sister's birthday is on March 3"]);
    // The answer is the family's own words.
    expect(events.at(-1)).toMatchObject({
      type: 'query.completed',
      text: "Saved: my sister's birthday is on March 3.",
    });
    expect(toolCallsOf(events)).toEqual([
      expect.objectContaining({
        tool: 'memory_save',
        status: 'ok',
        arguments: { content: "my sister's birthday is on March 3" },
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
    const [, search] = fakeMemoryTools();
    const events = await run('remember that the gate code is 4711', {
      tools: [search],
      withheldTools: [{ name: 'memory_save', reason: 'not_requested' }],
    });
    const text = (events.at(-1) as { text?: string }).text;
    expect(text).toContain("the query's list of tools leaves it out");
    expect(text).not.toContain('scope');
  });

  it('fails one tool call, not the run, when a handler throws or hangs', async () => {
    const broken = defineTool()({
      name: 'memory_save',
      description: 'broken',
      input: z.object({ content: z.string() }),
      scope: 'write:memories',
      handler: () => new Promise(() => undefined),
    });
    const events = await run('remember that x is y', {
      tools: [connectTool(broken, null)],
      limits: { toolTimeoutMs: 50 },
    });
    expect(events.find((e) => e.type === 'tool_call.completed')).toMatchObject({
      status: 'error',
      error: expect.stringContaining('longer than'),
    });
    expect(events.at(-1)).toMatchObject({
      type: 'query.completed',
      text: expect.stringContaining("I couldn't do that"),
    });
  });

  it("answers in one plain sentence when the model's call does not fit the tool's input schema", async () => {
    const memory: FakeMemory = { saved: [] };
    const events = await run(`remember that ${'a'.repeat(101)}`, { tools: fakeMemoryTools(memory) });
    expect(memory.saved).toEqual([]);
    const limit = 'content must be at most 100 characters';
    expect(events.find((e) => e.type === 'tool_call.completed')).toMatchObject({
      status: 'error',
      error: limit,
    });
    expect(events.at(-1)).toMatchObject({ type: 'query.completed', text: `I couldn't do that: ${limit}.` });
  });

  it('hands each tool the driver it was connected with, and the time zone', async () => {
    const seen: unknown[] = [];
    const probe = defineTool<{ name: string }>()({
      name: 'memory_save',
      description: 'probe',
      input: z.object({ content: z.string() }),
      scope: 'write:memories',
      handler: async (_input, context) => {
        seen.push({ driver: context.driver.name, timeZone: context.timeZone });
        return { content: 'ok' };
      },
    });
    await run('remember that x is y', {
      tools: [connectTool(probe, { name: 'conn-1' })],
      timeZone: 'Europe/Berlin',
    });
    expect(seen).toEqual([{ driver: 'conn-1', timeZone: 'Europe/Berlin' }]);
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
        model: model(20),
        text: 'hello',
        history: [],
        recalled: [],
        timeZone: 'UTC',
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
