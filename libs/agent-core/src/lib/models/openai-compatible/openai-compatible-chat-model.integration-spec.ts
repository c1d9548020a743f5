import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import {
  APICallError,
  JSONParseError,
  type LanguageModelV3CallOptions,
  type LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
// Test only: the scripted OpenAI-compatible server stands in for a model that cannot run here (no GPU, no weights).
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startOpenAiFixture, type OpenAiFixture } from '@assistant/test-services';
import { stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import { describeModelError } from '../../run/model-errors';
import { pushPartsOf } from '../pushed-parts';
import { OpenAiCompatibleChatModel } from './openai-compatible-chat-model';

type Part = LanguageModelV3StreamPart;

const ask = (text: string, extra: Partial<LanguageModelV3CallOptions> = {}): LanguageModelV3CallOptions => ({
  prompt: [{ role: 'user', content: [{ type: 'text', text }] }],
  ...extra,
});

type StreamResult = Awaited<ReturnType<OpenAiCompatibleChatModel['doStream']>>;
/** What the tests read parts with: `read` as a web stream's reader has it. */
type ReadResult = { done: true; value?: Part } | { done: false; value: Part };
type PartReader = { read(): Promise<ReadResult> };

/** The answer read from its web stream (what the SDK reads). */
const fromStream = (result: StreamResult): PartReader => result.stream.getReader();

/** The answer taken from its pushed parts (what the step loop takes), queued for `read`. */
function fromPushed(result: StreamResult): PartReader {
  const push = pushPartsOf(result);
  if (!push) throw new Error('the result pushes no parts');
  type Item = { value: ReadResult } | { error: unknown };
  const queue: Item[] = [];
  let waiting: ((item: Item) => void) | undefined;
  const put = (item: Item) => {
    const taker = waiting;
    waiting = undefined;
    if (taker) taker(item);
    else queue.push(item);
  };
  push({
    part: (value) => put({ value: { done: false, value } }),
    end: () => put({ value: { done: true } }),
    fail: (error) => put({ error }),
  });
  return {
    read: () =>
      new Promise((resolve, reject) => {
        const settle = (item: Item) => ('error' in item ? reject(item.error) : resolve(item.value));
        const item = queue.shift();
        if (item) settle(item);
        else waiting = settle;
      }),
  };
}

/** Reads to the end; an answer that fails gives the parts before the failure and the error. */
async function readParts(reader: PartReader): Promise<{ parts: Part[]; error?: unknown }> {
  const parts: Part[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { parts };
      parts.push(value);
    }
  } catch (error) {
    return { parts, error };
  }
}

const types = (parts: Part[]): string[] => parts.map((part) => part.type);
const partsOf = <T extends Part['type']>(parts: Part[], type: T) =>
  parts.filter((part): part is Extract<Part, { type: T }> => part.type === type);
const finishOf = (parts: Part[]) => partsOf(parts, 'finish')[0]!;

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// Every answer the same whether it is read from its web stream or taken from its pushed parts.
describe.each([
  ['its stream', fromStream],
  ['its pushed parts', fromPushed],
])('OpenAiCompatibleChatModel against an OpenAI-compatible server, read from %s', (_, readerOf) => {
  let fixture: OpenAiFixture;
  let model: OpenAiCompatibleChatModel;

  beforeAll(async () => {
    fixture = await startOpenAiFixture();
    model = new OpenAiCompatibleChatModel('fixture-model', {
      name: 'openai-compatible',
      baseURL: `${fixture.url}/`,
      apiKey: 'sk-test',
    });
  });
  afterAll(async () => {
    await model.close();
    await fixture.close();
  });
  beforeEach(() => fixture.reset());

  async function stream(options: LanguageModelV3CallOptions) {
    return readParts(readerOf(await model.doStream(options)));
  }

  it('streams text as one block of deltas between stream-start and finish, in the order the SDK expects', async () => {
    fixture.script({
      text: ['The ', 'answer ', 'is ', '42.'],
      usage: { promptTokens: 7, completionTokens: 4 },
    });
    const { parts, error } = await stream(ask('what is the answer?'));
    expect(error).toBeUndefined();
    expect(types(parts)).toEqual([
      'stream-start',
      'response-metadata',
      'text-start',
      'text-delta',
      'text-delta',
      'text-delta',
      'text-delta',
      'text-end',
      'finish',
    ]);
    const id = partsOf(parts, 'text-start')[0]!.id;
    expect(partsOf(parts, 'text-delta').every((part) => part.id === id)).toBe(true);
    expect(partsOf(parts, 'text-end')[0]!.id).toBe(id);
    expect(
      partsOf(parts, 'text-delta')
        .map((part) => part.delta)
        .join(''),
    ).toBe('The answer is 42.');
    expect(partsOf(parts, 'response-metadata')[0]).toMatchObject({
      id: expect.stringMatching(/^chatcmpl-/),
      modelId: 'fixture-model',
      timestamp: expect.any(Date),
    });
    expect(finishOf(parts)).toMatchObject({
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: { total: 7 }, outputTokens: { total: 4 } },
    });
    const [request] = fixture.requests;
    expect(request.body).toMatchObject({
      model: 'fixture-model',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'what is the answer?' }],
    });
    expect(request.headers.authorization).toBe('Bearer sk-test');
  });

  it('reports the usage chunk in the V3 shape: input, output, cached and reasoning tokens', async () => {
    fixture.script({ text: 'Hi.', usage: { promptTokens: 120, completionTokens: 33 } });
    const { parts } = await stream(ask('hi'));
    expect(finishOf(parts).usage).toEqual({
      inputTokens: { total: 120, noCache: 120, cacheRead: 0, cacheWrite: undefined },
      outputTokens: { total: 33, text: 33, reasoning: 0 },
      raw: { prompt_tokens: 120, completion_tokens: 33, total_tokens: 153 },
    });
  });

  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['content_filter', 'content-filter'],
    ['tool_calls', 'tool-calls'],
    ['eos_token', 'other'],
  ])('maps finish_reason %s to %s, keeping the raw value', async (raw, unified) => {
    fixture.script({ text: 'x', finishReason: raw });
    const { parts } = await stream(ask('x'));
    expect(finishOf(parts).finishReason).toEqual({ unified, raw });
  });

  it('assembles a tool call streamed in many argument deltas into one tool-call with the whole JSON', async () => {
    const args = { content: 'The dog is called Biscuit and likes long walks by the river', tags: ['pets'] };
    fixture.script({
      toolCalls: [{ id: 'call_1', name: 'memory_save', arguments: args }],
      argumentPieces: 12,
    });
    const { parts, error } = await stream(ask('remember my dog'));
    expect(error).toBeUndefined();
    expect(types(parts)).toEqual([
      'stream-start',
      'response-metadata',
      'tool-input-start',
      ...Array(12).fill('tool-input-delta'),
      'tool-input-end',
      'tool-call',
      'finish',
    ]);
    expect(partsOf(parts, 'tool-input-start')[0]).toEqual({
      type: 'tool-input-start',
      id: 'call_1',
      toolName: 'memory_save',
    });
    const deltas = partsOf(parts, 'tool-input-delta');
    expect(deltas.every((part) => part.id === 'call_1')).toBe(true);
    expect(JSON.parse(deltas.map((part) => part.delta).join(''))).toEqual(args);
    expect(partsOf(parts, 'tool-call')).toEqual([
      { type: 'tool-call', toolCallId: 'call_1', toolName: 'memory_save', input: JSON.stringify(args) },
    ]);
    expect(finishOf(parts).finishReason).toEqual({ unified: 'tool-calls', raw: 'tool_calls' });
  });

  it('keeps two parallel tool calls apart, by their index, each with its own id and input', async () => {
    fixture.script({
      text: 'Let me check both. ',
      toolCalls: [
        { id: 'call_a', name: 'calendar_list', arguments: { day: 'today' } },
        { id: 'call_b', name: 'memory_search', arguments: { query: 'dentist appointment' } },
      ],
      argumentPieces: 3,
    });
    const { parts } = await stream(ask('what is on today?'));
    expect(partsOf(parts, 'tool-input-start').map((part) => [part.id, part.toolName])).toEqual([
      ['call_a', 'calendar_list'],
      ['call_b', 'memory_search'],
    ]);
    // The text block ends before the first call starts.
    expect(types(parts).indexOf('text-end')).toBeLessThan(types(parts).indexOf('tool-input-start'));
    expect(partsOf(parts, 'tool-call').map((part) => [part.toolCallId, JSON.parse(part.input)])).toEqual([
      ['call_a', { day: 'today' }],
      ['call_b', { query: 'dentist appointment' }],
    ]);
  });

  it('streams reasoning_content as a reasoning block before the text block', async () => {
    fixture.script({ reasoning: ['The user ', 'greets me.'], text: ['Hello!'] });
    const { parts } = await stream(ask('hi'));
    expect(types(parts).slice(2)).toEqual([
      'reasoning-start',
      'reasoning-delta',
      'reasoning-delta',
      'reasoning-end',
      'text-start',
      'text-delta',
      'text-end',
      'finish',
    ]);
    expect(
      partsOf(parts, 'reasoning-delta')
        .map((part) => part.delta)
        .join(''),
    ).toBe('The user greets me.');
  });

  it('sends the whole conversation and the tools in the OpenAI chat format', async () => {
    fixture.script({ text: 'ok' });
    await stream({
      prompt: [
        { role: 'system', content: 'You are helpful.' },
        { role: 'user', content: [{ type: 'text', text: 'remember my dog' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Saving.' },
            { type: 'tool-call', toolCallId: 'call_1', toolName: 'memory_save', input: { content: 'dog' } },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'call_1',
              toolName: 'memory_save',
              output: { type: 'json', value: { saved: true } },
            },
          ],
        },
      ],
      tools: [
        {
          type: 'function',
          name: 'memory_save',
          description: 'Saves a memory',
          inputSchema: { type: 'object', properties: { content: { type: 'string' } } },
        },
      ],
      toolChoice: { type: 'tool', toolName: 'memory_save' },
      maxOutputTokens: 100,
      temperature: 0.2,
    });
    const { body } = fixture.requests[0];
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: 'remember my dog' },
      {
        role: 'assistant',
        content: 'Saving.',
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'memory_save', arguments: '{"content":"dog"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"saved":true}' },
    ]);
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'memory_save',
          description: 'Saves a memory',
          parameters: { type: 'object', properties: { content: { type: 'string' } } },
        },
      },
    ]);
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'memory_save' } });
    expect(body).toMatchObject({ max_tokens: 100, temperature: 0.2 });
  });

  it.each([
    [401, false],
    [429, true],
    [500, true],
  ])(
    'throws an HTTP %i as an APICallError with status, body, url and the server message (retryable: %s)',
    async (status, retryable) => {
      fixture.script({ status, body: { error: { message: `nope ${status}`, type: 'x', code: null } } });
      const error = await model.doStream(ask('hi')).catch((e: unknown) => e);
      expect(APICallError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        statusCode: status,
        message: `nope ${status}`,
        url: `${fixture.url}/chat/completions`,
        isRetryable: retryable,
        responseBody: JSON.stringify({ error: { message: `nope ${status}`, type: 'x', code: null } }),
      });
      expect(describeModelError(error)).toEqual({
        code: 'model_unavailable',
        detail: `the model server at 127.0.0.1:${fixture.port} answered ${status}`,
      });
    },
  );

  it('throws a refused connection as an APICallError without status, carrying ECONNREFUSED', async () => {
    const port = await closedPort();
    const nowhere = new OpenAiCompatibleChatModel('m', { name: 'x', baseURL: `http://127.0.0.1:${port}/v1` });
    try {
      const error = await nowhere.doStream(ask('hi')).catch((e: unknown) => e);
      expect(APICallError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        statusCode: undefined,
        isRetryable: true,
        cause: { code: 'ECONNREFUSED' },
      });
      expect(describeModelError(error)).toEqual({
        code: 'model_unavailable',
        detail: `cannot reach the model at 127.0.0.1:${port}`,
      });
    } finally {
      await nowhere.close();
    }
  });

  it('refuses a base URL that is not a URL with model_unavailable, when the model is made', () => {
    expect(() => new OpenAiCompatibleChatModel('m', { name: 'x', baseURL: '127.0.0.1:8080/v1' })).toThrow(
      expect.objectContaining({
        code: 'model_unavailable',
        message: expect.stringContaining('127.0.0.1:8080/v1'),
      }),
    );
  });

  it('ends the stream with the abort reason when aborted mid-answer, and closes the request', async () => {
    fixture.script({ hang: true, text: ['Thinking '] }, { text: 'next' });
    const controller = new AbortController();
    const reader = readerOf(await model.doStream(ask('hi', { abortSignal: controller.signal })));
    const seen: Part[] = [];
    while (!seen.some((part) => part.type === 'text-delta')) seen.push((await reader.read()).value!);
    const reason = new Error('the user cancelled');
    controller.abort(reason);
    await expect(reader.read()).rejects.toBe(reason);
    // The hanging request was closed (else the fixture would hold it), and the next one is served.
    const { parts: next } = await stream(ask('again'));
    expect(partsOf(next, 'text-delta')[0]?.delta).toBe('next');
  });

  it('rejects with the abort reason when aborted before the answer starts', async () => {
    fixture.script({ hang: true, headers: false });
    const controller = new AbortController();
    const pending = model.doStream(ask('hi', { abortSignal: controller.signal }));
    await fixture.waitForRequests(1);
    const reason = new Error('the run timed out');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('errors the stream when the connection drops mid-answer, after the text that arrived', async () => {
    fixture.script({ drop: true, text: ['Half ', 'an '] });
    const { parts, error } = await stream(ask('hi'));
    expect(
      partsOf(parts, 'text-delta')
        .map((part) => part.delta)
        .join(''),
    ).toBe('Half an ');
    expect(types(parts)).not.toContain('finish');
    expect(APICallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      statusCode: undefined,
      message: expect.stringContaining('closed mid-answer'),
    });
    // Told as a cut answer, not as a model that could not be reached.
    expect(describeModelError(error)).toEqual({
      code: 'model_unavailable',
      detail: `the connection to the model at 127.0.0.1:${fixture.port} closed before the answer was complete`,
    });
  });

  it('reports an answer cut short (no finish reason, no [DONE]) as an error part and an error finish', async () => {
    const own = await startOpenAiFixture();
    const cut = new OpenAiCompatibleChatModel('m', { name: 'x', baseURL: own.url });
    try {
      own.script({ hang: true, text: ['Half'] });
      const pending = cut.doStream(ask('hi')).then((result) => readParts(readerOf(result)));
      await own.waitForRequests(1);
      await own.close(); // ends the hanging response cleanly, without a finish reason or [DONE]
      const { parts, error } = await pending;
      expect(error).toBeUndefined();
      expect(types(parts).slice(-3)).toEqual(['text-end', 'error', 'finish']);
      expect(finishOf(parts).finishReason).toEqual({ unified: 'error', raw: undefined });
      expect(describeModelError(partsOf(parts, 'error')[0]!.error).code).toBe('model_unavailable');
    } finally {
      await cut.close();
      await own.close();
    }
  });

  it('reports an error object sent mid-stream as an error part with the server status and message', async () => {
    fixture.script({ text: ['So '], streamError: { message: 'the model ran out of memory', code: 500 } });
    const { parts } = await stream(ask('hi'));
    const [failure] = partsOf(parts, 'error');
    expect(APICallError.isInstance(failure?.error)).toBe(true);
    expect(failure?.error).toMatchObject({ statusCode: 500, message: 'the model ran out of memory' });
    expect(finishOf(parts).finishReason.unified).toBe('error');
    expect(describeModelError(failure?.error)).toEqual({
      code: 'model_unavailable',
      detail: `the model server at 127.0.0.1:${fixture.port} stopped its answer with an error`,
    });
  });

  it('reports a chunk that is not JSON as an error part the run maps to an unreadable answer', async () => {
    fixture.script({ malformed: true, text: ['Half '] });
    const { parts } = await stream(ask('hi'));
    const [failure] = partsOf(parts, 'error');
    // Reported as the unreadable chunk it is, not only as the missing finish reason that follows it.
    expect(JSONParseError.isInstance(failure?.error)).toBe(true);
    expect(describeModelError(failure?.error)).toEqual({
      code: 'model_unavailable',
      detail: 'the model sent a response that could not be read',
    });
    expect(finishOf(parts).finishReason.unified).toBe('error');
  });

  it('answers doGenerate with one whole completion: reasoning, text, tool calls, finish and usage', async () => {
    fixture.script(
      { reasoning: 'Easy.', text: 'Forty-two.', usage: { promptTokens: 5, completionTokens: 2 } },
      { toolCalls: [{ id: 'call_9', name: 'memory_search', arguments: { query: 'keys' } }] },
    );
    const text = await model.doGenerate(ask('what is the answer?'));
    expect(text.content).toEqual([
      { type: 'reasoning', text: 'Easy.' },
      { type: 'text', text: 'Forty-two.' },
    ]);
    expect(text.finishReason).toEqual({ unified: 'stop', raw: 'stop' });
    expect(text.usage).toMatchObject({ inputTokens: { total: 5 }, outputTokens: { total: 2 } });
    expect(fixture.requests[0].body).toMatchObject({ stream: false });
    expect(fixture.requests[0].body).not.toHaveProperty('stream_options');
    const call = await model.doGenerate(ask('where are my keys?'));
    expect(call.content).toEqual([
      { type: 'tool-call', toolCallId: 'call_9', toolName: 'memory_search', input: '{"query":"keys"}' },
    ]);
    expect(call.finishReason.unified).toBe('tool-calls');
  });

  it("is driven by the SDK's own streamText through a tool round trip", async () => {
    fixture.script(
      { toolCalls: [{ id: 'call_1', name: 'memory_save', arguments: { content: 'The dog is Biscuit' } }] },
      { text: ['Noted: ', 'Biscuit.'], usage: { promptTokens: 30, completionTokens: 2 } },
    );
    const saved: string[] = [];
    const result = streamText({
      model,
      prompt: 'my dog is called Biscuit, remember it',
      tools: {
        memory_save: tool({
          description: 'Saves a memory',
          inputSchema: z.object({ content: z.string() }),
          execute: async ({ content }) => {
            saved.push(content);
            return { saved: true };
          },
        }),
      },
      stopWhen: stepCountIs(3),
    });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);
    expect(deltas).toEqual(['Noted: ', 'Biscuit.']);
    expect(saved).toEqual(['The dog is Biscuit']);
    expect(await result.finishReason).toBe('stop');
    expect((await result.usage).outputTokens).toBe(2);
    expect(fixture.requests[1].messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content: '{"saved":true}',
    });
  });
});

describe('OpenAiCompatibleChatModel, an answer read one way', () => {
  let fixture: OpenAiFixture;
  let model: OpenAiCompatibleChatModel;

  beforeAll(async () => {
    fixture = await startOpenAiFixture();
    model = new OpenAiCompatibleChatModel('fixture-model', {
      name: 'openai-compatible',
      baseURL: fixture.url,
    });
  });
  afterAll(async () => {
    await model.close();
    await fixture.close();
  });

  it('goes to its stream once the stream is taken: nothing is pushed', async () => {
    fixture.script({ text: ['Hello'] });
    const result = await model.doStream(ask('hi'));
    const { parts } = await readParts(fromStream(result));
    expect(partsOf(parts, 'text-delta').map((part) => part.delta)).toEqual(['Hello']);
    expect(
      pushPartsOf(result)?.({ part: () => undefined, end: () => undefined, fail: () => undefined }),
    ).toBe(undefined);
  });

  it('goes to its pushed parts once they are taken: the stream errors', async () => {
    fixture.script({ text: ['Hello'] });
    const result = await model.doStream(ask('hi'));
    const { parts } = await readParts(fromPushed(result));
    expect(partsOf(parts, 'text-delta').map((part) => part.delta)).toEqual(['Hello']);
    const { error } = await readParts(fromStream(result));
    expect(error).toEqual(new Error('the answer was taken by its pushed parts'));
  });
});
