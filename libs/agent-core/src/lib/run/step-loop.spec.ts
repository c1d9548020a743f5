import { z } from 'zod';
import { zodSchema } from 'ai';
import { APICallError } from '@ai-sdk/provider';
import { connectTool, defineTool, type ConnectedTool } from '@assistant/tool-kit';
import { fakeMemoryTools, type FakeMemory } from '../../testing/fake-memory-family';
import { withPushParts } from '../models/pushed-parts';
import { scriptedModel, type PartDelivery, type ScriptedTurn } from '../../testing/scripted-model';
import type { RunInput } from './run-query';
import { runOn } from '../../testing/run-builtin';
import { toolInputJsonSchema } from './tool-schemas';

/** One run on a scripted model; its events, and the model (with what each of its calls was given). */
async function runWith(delivery: PartDelivery, turns: ScriptedTurn[], overrides: Partial<RunInput> = {}) {
  const model = scriptedModel(turns, delivery);
  const events = await runOn(model, 'scripted', 'the question', overrides);
  return { events, model, types: events.map((e) => e.type) };
}

const call = (id: string, tool: string, input: unknown) => ({
  id,
  tool,
  input: typeof input === 'string' ? input : JSON.stringify(input),
});

// The same run whether the model's parts come from its web stream or are pushed (our own provider).
describe.each(['stream', 'pushed'] as const)('the step loop (parts %s)', (delivery) => {
  const run = (turns: ScriptedTurn[], overrides: Partial<RunInput> = {}) =>
    runWith(delivery, turns, overrides);

  it('goes model → tools → model until a step asks for none, each request carrying the steps before it', async () => {
    const memory: FakeMemory = { saved: [] };
    const { events, model, types } = await run(
      [
        { text: ['Saving. '], toolCalls: [call('c1', 'memory_save', { content: 'x is y' })] },
        { toolCalls: [call('c2', 'memory_search', { query: 'what is x' })] },
        { text: ['Done', '.'] },
      ],
      { tools: fakeMemoryTools(memory) },
    );
    expect(types).toEqual([
      'query.created',
      'output_text.delta',
      'tool_call.started',
      'memory.saved',
      'tool_call.completed',
      'tool_call.started',
      'tool_call.completed',
      'output_text.delta',
      'output_text.delta',
      'query.completed',
    ]);
    expect(memory.saved).toEqual(['x is y']);
    expect(model.calls).toHaveLength(3);
    // The third request: system, question, then each step's turn and its tool's result, in order.
    expect(model.calls[2].prompt.slice(1)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'the question' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Saving. ' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'memory_save', input: { content: 'x is y' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'memory_save',
            output: { type: 'json', value: { memory_id: 'mem_1', content: 'x is y' } },
          },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'c2', toolName: 'memory_search', input: { query: 'what is x' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'memory_search',
            output: { type: 'json', value: { memories: [] } },
          },
        ],
      },
    ]);
    // Every request lists the same tools with their input schemas, and leaves the choice to the model.
    for (const options of model.calls) {
      expect(options.tools?.map((t) => t.name)).toEqual(['memory_save', 'memory_search']);
      expect(options.toolChoice).toEqual({ type: 'auto' });
    }
    expect(events.at(-1)).toMatchObject({
      type: 'query.completed',
      text: 'Saving. Done.',
      finish_reason: 'stop',
    });
  });

  it("runs a step's tool calls at the same time, and gives their results back in the order they were asked", async () => {
    let arrived = 0;
    let bothArrived: () => void = () => undefined;
    const together = new Promise<void>((resolve) => (bothArrived = resolve));
    /** Returns only once both calls are in progress: run one after the other, the first would time out. */
    const meet = (name: string, delayMs: number) =>
      connectTool(
        defineTool()({
          name,
          description: name,
          input: z.object({}),
          scope: 'read:memories',
          handler: async () => {
            if (++arrived === 2) bothArrived();
            await together;
            await new Promise((resolve) => setTimeout(resolve, delayMs));
            return `${name} done`;
          },
        }),
        null,
      );
    const { events, model } = await run(
      [{ toolCalls: [call('a', 'slow_first', {}), call('b', 'fast_second', {})] }, { text: ['ok'] }],
      { tools: [meet('slow_first', 30), meet('fast_second', 0)], limits: { toolTimeoutMs: 1_000 } },
    );
    const completed = events.filter((e) => e.type === 'tool_call.completed');
    expect(completed.map((e) => [e.call_id, e.status])).toEqual([
      ['b', 'ok'],
      ['a', 'ok'],
    ]);
    expect(model.calls[1].prompt.at(-1)).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'a',
          toolName: 'slow_first',
          output: { type: 'text', value: 'slow_first done' },
        },
        {
          type: 'tool-result',
          toolCallId: 'b',
          toolName: 'fast_second',
          output: { type: 'text', value: 'fast_second done' },
        },
      ],
    });
  });

  it('holds every tool call until what tools may refer to is stored (toolsMayRun)', async () => {
    const memory: FakeMemory = { saved: [] };
    let stored = false;
    let markStored: () => void = () => undefined;
    const toolsMayRun = new Promise<void>((resolve) => (markStored = resolve)).then(() => (stored = true));
    setTimeout(markStored, 50);
    const [save] = fakeMemoryTools(memory);
    const seen: boolean[] = [];
    const probe = {
      ...save,
      handler: async (input: never, context: never) => (seen.push(stored), save.handler(input, context)),
    };
    const { events } = await run(
      [{ toolCalls: [call('c1', 'memory_save', { content: 'a' })] }, { text: ['ok'] }],
      { tools: [probe], toolsMayRun },
    );
    expect(seen).toEqual([true]);
    expect(events.at(-1)).toMatchObject({ type: 'query.completed' });
  });

  it('stops after maxSteps model calls when the last one still asked for tools: max_steps', async () => {
    const memory: FakeMemory = { saved: [] };
    const { events, model } = await run(
      [{ toolCalls: [call('again', 'memory_save', { content: 'once more' })] }],
      { tools: fakeMemoryTools(memory), limits: { maxSteps: 3 } },
    );
    expect(model.calls).toHaveLength(3);
    expect(memory.saved).toEqual(['once more', 'once more', 'once more']);
    expect(events.at(-1)).toEqual({ type: 'query.incomplete', reason: 'max_steps' });
  });

  it('completes when the last step allowed answers without tools', async () => {
    const { events, model } = await run(
      [{ toolCalls: [call('c1', 'memory_save', { content: 'a' })] }, { text: ['fine'] }],
      { tools: fakeMemoryTools(), limits: { maxSteps: 2 } },
    );
    expect(model.calls).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: 'query.completed', text: 'fine' });
  });

  it('sums the usage of every step and reports the finish reason of the last', async () => {
    const { events } = await run(
      [
        { toolCalls: [call('c1', 'memory_save', { content: 'a' })], usage: { input: 10, output: 2 } },
        { text: ['cut'], usage: { input: 15, output: 3 }, finishReason: 'length' },
      ],
      { tools: fakeMemoryTools() },
    );
    expect(events.at(-1)).toMatchObject({
      type: 'query.completed',
      usage: { input_tokens: 25, output_tokens: 5 },
      finish_reason: 'length',
    });
  });

  it('refuses a call of a tool the run does not have, tells the model why, and goes on', async () => {
    const memory: FakeMemory = { saved: [] };
    const [, search] = fakeMemoryTools(memory);
    const { events, model } = await run(
      [{ toolCalls: [call('c1', 'memory_save', { content: 'secret' })] }, { text: ['I cannot.'] }],
      { tools: [search] },
    );
    expect(memory.saved).toEqual([]);
    const error = "Model tried to call unavailable tool 'memory_save'. Available tools: memory_search.";
    expect(events.filter((e) => e.type.startsWith('tool_call.'))).toEqual([
      { type: 'tool_call.started', call_id: 'c1', tool: 'memory_save', arguments: { content: 'secret' } },
      { type: 'tool_call.completed', call_id: 'c1', tool: 'memory_save', status: 'error', error },
    ]);
    expect(model.calls[1].prompt.at(-1)).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'memory_save',
          output: { type: 'error-text', value: error },
        },
      ],
    });
    expect(events.at(-1)).toMatchObject({ type: 'query.completed', text: 'I cannot.' });
  });

  it('refuses a call whose input is not JSON, repeating it to the model with an empty input', async () => {
    const { events, model } = await run(
      [{ toolCalls: [call('c1', 'memory_save', '{"content": ')] }, { text: ['sorry'] }],
      { tools: fakeMemoryTools() },
    );
    expect(events.find((e) => e.type === 'tool_call.completed')).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/^Invalid input for tool memory_save: /),
    });
    expect(model.calls[1].prompt.at(-2)).toEqual({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'memory_save', input: {} }],
    });
  });

  it("fails the run with the model's error when its stream sends one, after what it said before", async () => {
    const { types, events } = await run([
      {
        text: ['half'],
        error: new APICallError({
          message: 'boom',
          url: 'http://model.test/v1',
          requestBodyValues: {},
          statusCode: 500,
        }),
      },
    ]);
    expect(types).toEqual(['query.created', 'output_text.delta', 'query.failed']);
    expect(events.at(-1)).toMatchObject({
      error: { code: 'model_unavailable', detail: 'the model server at model.test answered 500' },
    });
  });

  it('stops a model that goes quiet even when it ignores the abort: model_unavailable', async () => {
    const deaf = scriptedModel([]);
    // Never a part, and deaf to being stopped.
    deaf.doStream = async () => {
      const result = { stream: new ReadableStream({ start: () => undefined }) };
      return delivery === 'pushed' ? withPushParts(result, () => () => undefined) : result;
    };
    const { events } = await run([], { model: deaf, limits: { modelIdleMs: 50 } });
    expect(events.at(-1)).toMatchObject({
      type: 'query.failed',
      error: { code: 'model_unavailable', detail: expect.stringContaining('sent nothing') },
    });
  });

  it("ends at the run's time limit, whatever the model does: query.incomplete timeout", async () => {
    const deaf = scriptedModel([]);
    deaf.doStream = () => new Promise(() => undefined);
    const { events } = await run([], { model: deaf, limits: { runTimeoutMs: 50 } });
    expect(events.at(-1)).toEqual({ type: 'query.incomplete', reason: 'timeout' });
  });
});

describe("a tool's input schema as the model sees it", () => {
  const tools: ConnectedTool[] = fakeMemoryTools();

  it('is what the AI SDK makes of the zod schema (objects closed), made once per schema', () => {
    for (const tool of tools) {
      expect(toolInputJsonSchema(tool.input)).toEqual(zodSchema(tool.input).jsonSchema);
      expect(toolInputJsonSchema(tool.input)).toBe(toolInputJsonSchema(tool.input));
    }
    const nested = z.object({
      where: z.object({ city: z.string() }),
      tags: z.array(z.object({ t: z.string() })),
    });
    expect(toolInputJsonSchema(nested)).toEqual(zodSchema(nested).jsonSchema);
  });
});
