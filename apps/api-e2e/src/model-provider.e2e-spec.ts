import type { ListEnvelope, Memory, Message } from '@assistant/contracts';
import { startOpenAiFixture, type OpenAiFixture } from '@assistant/test-services';
import { ApiClient } from './support/http';
import { readStream, sequence, types, type StreamResult } from './support/sse';
import { startSelfHost, type Target } from './support/targets';

/**
 * The openai-compatible provider wiring (and so Ollama, llama.cpp, vLLM, LM Studio) against a fixture that speaks
 * the OpenAI chat-completions streaming protocol: a language model cannot run on this machine.
 */
describe('an OpenAI-compatible model server behind the assistant', () => {
  let fixture: OpenAiFixture;
  let target: Target;
  let api: ApiClient;

  beforeAll(async () => {
    fixture = await startOpenAiFixture();
    target = await startSelfHost('sqlite', {
      ASSISTANT_MODEL: 'openai-compatible:fixture-model',
      ASSISTANT_MODEL_BASE_URL: fixture.url,
      ASSISTANT_MODEL_TIMEOUT_SECONDS: '1',
      ASSISTANT_MAX_CONCURRENT_QUERIES: '1',
      ASSISTANT_RATE_LIMIT_QUERIES: '1000',
    });
    api = new ApiClient(target.url, target.ownerToken);
  });
  afterAll(async () => {
    await target?.stop();
    await fixture?.close();
  });
  beforeEach(() => fixture.reset());

  const ask = (text: string): Promise<StreamResult> =>
    readStream(`${target.url}/api/v1/queries`, { token: target.ownerToken, body: { text } });

  async function assistantMessages(result: StreamResult): Promise<Message[]> {
    const created = result.events[0].event;
    if (created.type !== 'query.created') throw new Error('first event is not query.created');
    const messages = await api.get<ListEnvelope<Message>>(`/discussions/${created.discussion_id}/messages`);
    return messages.body.data.filter((m) => m.role === 'assistant');
  }

  it('streams deltas as the model sends them, before the run ends', async () => {
    fixture.script({ text: ['The ', 'answer ', 'is ', '42.'], intervalMs: 40 });
    const result = await ask('what is the answer?');
    expect(sequence(result)).toEqual(result.events.map((_, i) => i + 1));
    const deltas = result.events.filter((e) => e.event.type === 'output_text.delta');
    expect(deltas.map((e) => (e.event.type === 'output_text.delta' ? e.event.delta : ''))).toEqual([
      'The ',
      'answer ',
      'is ',
      '42.',
    ]);
    // The deltas arrive over several network reads as the model sends them, the first before the terminal event.
    expect(new Set(deltas.map((e) => e.chunk)).size).toBeGreaterThan(1);
    expect(deltas[0].chunk).toBeLessThan(result.events.at(-1)!.chunk);
    expect(result.events[0].event).toMatchObject({ model: 'openai-compatible:fixture-model' });
    expect(fixture.requests[0].model).toBe('fixture-model');
    expect(fixture.requests[0].messages.at(-1)).toMatchObject({
      role: 'user',
      content: 'what is the answer?',
    });
  });

  it('runs a tool-call round trip: the model calls memory_save, gets the result, and answers', async () => {
    fixture.script(
      {
        toolCalls: [
          { id: 'call_1', name: 'memory_save', arguments: { content: 'The dog is called Biscuit' } },
        ],
      },
      { text: ['Noted: ', 'Biscuit.'] },
    );
    const result = await ask('my dog is called Biscuit, remember it');
    expect(types(result)).toEqual([
      'query.created',
      'tool_call.started',
      'memory.saved',
      'tool_call.completed',
      'output_text.delta',
      'output_text.delta',
      'query.completed',
    ]);
    expect(result.events[1].event).toMatchObject({
      call_id: 'call_1',
      tool: 'memory_save',
      arguments: { content: 'The dog is called Biscuit' },
    });
    expect(result.events.at(-1)!.event).toMatchObject({ text: 'Noted: Biscuit.' });
    // The second request carries the tool call and its result back to the model.
    expect(fixture.requests).toHaveLength(2);
    // The model is offered exactly the tools active on the account (and allowed by the token).
    const catalogue = await api.get<{ data: Array<{ name: string; active: boolean }> }>('/tools');
    const active = catalogue.body.data.filter((t) => t.active).map((t) => t.name);
    expect(active).toEqual(expect.arrayContaining(['memory_save', 'memory_search']));
    expect(fixture.requests[0].tools?.map((t) => t.function?.name).sort()).toEqual(active.sort());
    const toolMessage = fixture.requests[1].messages.find((m) => m.role === 'tool');
    expect(JSON.stringify(toolMessage)).toContain('Biscuit');
    const memories = await api.get<ListEnvelope<Memory>>('/memories?q=biscuit');
    expect(memories.body.data.map((m) => m.content)).toEqual(['The dog is called Biscuit']);
    expect((await assistantMessages(result))[0].tool_calls[0]).toMatchObject({
      tool: 'memory_save',
      status: 'ok',
    });
  });

  it('puts recalled memories into the model context', async () => {
    await api.post('/memories', { content: 'The spare key is under the blue flowerpot' });
    fixture.script({ text: 'Under the blue flowerpot.' });
    await ask('where is the spare key?');
    const system = fixture.requests[0].messages.find((m) => m.role === 'system');
    expect(JSON.stringify(system)).toContain('The spare key is under the blue flowerpot');
  });

  it('keeps memories out of the model context for a token without read:memories', async () => {
    await api.post('/memories', { content: 'My bank PIN is 4921' });
    const created = await api.post<{ token: string }>('/tokens', {
      name: 'queries only',
      scopes: ['write:queries'],
    });
    fixture.script({ text: 'I cannot see that.' });
    const result = await readStream(`${target.url}/api/v1/queries`, {
      token: created.body.token,
      body: { text: 'what is my bank PIN?' },
    });
    expect(result.events.at(-1)!.event.type).toBe('query.completed');
    expect(JSON.stringify(fixture.requests[0].messages)).not.toContain('4921');
    expect(fixture.requests[0].tools ?? []).toEqual([]);
  });

  it.each([
    ['a malformed chunk', { malformed: true, text: 'Half an ans' }],
    ['a 500 from the model server', { status: 500 }],
    ['a model that hangs past the timeout', { hang: true, text: 'I am think' }],
  ] as const)('%s → query.failed (model_unavailable) and nothing half-written', async (_name, step) => {
    fixture.script(step as never);
    const result = await ask('tell me something');
    expect(sequence(result)).toEqual(result.events.map((_, i) => i + 1));
    expect(types(result).filter((t) => t.startsWith('query.') && t !== 'query.created')).toEqual([
      'query.failed',
    ]);
    expect(result.events.at(-1)!.event).toMatchObject({
      type: 'query.failed',
      error: { code: 'model_unavailable', status: 503 },
    });
    expect(await assistantMessages(result)).toEqual([]);
    // The next query works: one failure does not poison the server.
    fixture.script({ text: 'Fine again.' });
    const next = await ask('hello again');
    expect(next.events.at(-1)!.event).toMatchObject({ type: 'query.completed', text: 'Fine again.' });
  });

  it('refuses a query beyond the concurrent-run cap with 429, before any stream', async () => {
    fixture.script({ text: ['slow ', 'answer'], intervalMs: 300 });
    const first = ask('first');
    await fixture.waitForRequests(1);
    const second = await ask('second');
    expect(second.status).toBe(429);
    expect(second.problem).toMatchObject({ code: 'rate_limited' });
    expect((await first).events.at(-1)!.event.type).toBe('query.completed');
  });
});

describe('a model server that cannot be reached', () => {
  it('fails the query with model_unavailable', async () => {
    const target = await startSelfHost('sqlite', {
      ASSISTANT_MODEL: 'openai-compatible:nothing',
      ASSISTANT_MODEL_BASE_URL: 'http://127.0.0.1:9/v1',
    });
    try {
      const result = await readStream(`${target.url}/api/v1/queries`, {
        token: target.ownerToken,
        body: { text: 'hi' },
      });
      expect(result.events.at(-1)!.event).toMatchObject({
        type: 'query.failed',
        error: { code: 'model_unavailable', detail: expect.stringContaining('cannot reach the model') },
      });
    } finally {
      await target.stop();
    }
  });

  it('refuses to start when the model is configured wrong, in one line', async () => {
    await expect(startSelfHost('sqlite', { ASSISTANT_MODEL: 'openai-compatible:x' })).rejects.toThrow(
      /assistant: model "openai-compatible:x" needs ASSISTANT_MODEL_BASE_URL/,
    );
  });
});

describe('a quiet stream', () => {
  it('gets a `: ping` comment while the model thinks, and still one terminal event', async () => {
    const fixture = await startOpenAiFixture();
    const target = await startSelfHost('sqlite', {
      ASSISTANT_MODEL: 'openai-compatible:slow',
      ASSISTANT_MODEL_BASE_URL: fixture.url,
      ASSISTANT_STREAM_PING_SECONDS: '1',
    });
    try {
      fixture.script({ text: ['Thinking… ', 'done.'], intervalMs: 2_500 });
      const result = await readStream(`${target.url}/api/v1/queries`, {
        token: target.ownerToken,
        body: { text: 'take your time' },
      });
      expect(result.comments).toContain('ping');
      expect(result.events.at(-1)!.event).toMatchObject({ type: 'query.completed', text: 'Thinking… done.' });
    } finally {
      await target.stop();
      await fixture.close();
    }
  });
});

describe('the model provider’s keys', () => {
  const KEYS = {
    ASSISTANT_MODEL_API_KEY: 'sk-model-key-4f1c9e7d2b',
    OPENAI_API_KEY: 'sk-openai-key-8a3e5d1f6c',
    ANTHROPIC_API_KEY: 'sk-ant-key-2d7b9c4e1a',
  };

  it('never appear in the start-up lines, /readyz, a failed query or its log lines, even when the model server echoes them', async () => {
    const fixture = await startOpenAiFixture();
    const target = await startSelfHost('sqlite', {
      ASSISTANT_MODEL: 'openai-compatible:keyed-model',
      ASSISTANT_MODEL_BASE_URL: fixture.url,
      ASSISTANT_LOG_LEVEL: 'debug',
      ...KEYS,
    });
    try {
      // A model server refusing the key and quoting it back, as some do in their error message.
      fixture.script({
        status: 401,
        body: {
          error: {
            message: `Incorrect API key provided: ${KEYS.ASSISTANT_MODEL_API_KEY}`,
            type: 'invalid_request_error',
            code: 'invalid_api_key',
          },
        },
      });
      const result = await readStream(`${target.url}/api/v1/queries`, {
        token: target.ownerToken,
        body: { text: 'hello' },
      });
      expect(fixture.requests[0].headers.authorization).toBe(`Bearer ${KEYS.ASSISTANT_MODEL_API_KEY}`);
      expect(result.events.at(-1)!.event).toMatchObject({
        type: 'query.failed',
        error: { code: 'model_unavailable' },
      });
      const readiness = await fetch(`${target.url}/readyz`);
      const said = [
        target.server.output(),
        JSON.stringify(result.events),
        JSON.stringify(result.problem ?? null),
        await readiness.text(),
      ].join('\n');
      expect(said).toContain('model_unavailable');
      for (const [name, key] of Object.entries(KEYS)) {
        expect({ name, leaked: said.includes(key) }).toEqual({ name, leaked: false });
      }
    } finally {
      await target.stop();
      await fixture.close();
    }
  });
});
