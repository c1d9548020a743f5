import { DEFAULT_FIXTURE_TEXT, pieces, startOpenAiFixture, type OpenAiFixture } from './openai-fixture';

interface Chunk {
  id: string;
  object: string;
  model: string;
  choices: {
    index: number;
    delta: {
      role?: string;
      content?: string | null;
      reasoning_content?: string;
      tool_calls?: {
        index: number;
        id?: string;
        type?: string;
        function: { name?: string; arguments: string };
      }[];
    };
    finish_reason: string | null;
  }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
}

interface Sse {
  status: number;
  contentType: string | null;
  /** The `data:` payloads in order, as text (so "[DONE]" and malformed ones are kept). */
  data: string[];
  /** process.hrtime.bigint() when each data line was parsed. */
  receivedAt: bigint[];
}

/** POSTs a chat-completions request and reads its SSE body to the end, splitting events on blank lines. */
async function streamChat(fixture: OpenAiFixture, body: Record<string, unknown> = {}): Promise<Sse> {
  const response = await fetch(`${fixture.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer anything' },
    body: JSON.stringify({
      model: 'test-model',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
      ...body,
    }),
  });
  const result: Sse = {
    status: response.status,
    contentType: response.headers.get('content-type'),
    data: [],
    receivedAt: [],
  };
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
    const now = process.hrtime.bigint();
    buffer += decoder.decode(bytes, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      for (const line of event.split('\n')) {
        if (line.startsWith('data: ')) {
          result.data.push(line.slice('data: '.length));
          result.receivedAt.push(now);
        }
      }
    }
  }
  expect(buffer).toBe('');
  return result;
}

function chunks(sse: Sse): Chunk[] {
  expect(sse.data.at(-1)).toBe('[DONE]');
  return sse.data.slice(0, -1).map((data) => JSON.parse(data) as Chunk);
}

function contentOf(all: Chunk[]): string {
  return all.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
}

describe('OpenAI chat-completions fixture', () => {
  let fixture: OpenAiFixture;

  beforeEach(async () => {
    fixture = await startOpenAiFixture();
  });

  afterEach(async () => {
    await fixture.close();
  });

  it('has a base URL ending in /v1 and lists its models', async () => {
    expect(fixture.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const response = await fetch(`${fixture.url}/models`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      object: 'list',
      data: [expect.objectContaining({ id: 'fixture', object: 'model', owned_by: 'fixture' })],
    });
  });

  it('streams text as chat.completion.chunk events that assemble to the text, then [DONE]', async () => {
    fixture.script({ text: ['Hel', 'lo, ', 'world', '!'] });
    const sse = await streamChat(fixture);
    expect(sse.status).toBe(200);
    expect(sse.contentType).toMatch(/^text\/event-stream/);
    const all = chunks(sse);
    expect(all.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(new Set(all.map((chunk) => chunk.id)).size).toBe(1);
    expect(all.every((chunk) => chunk.model === 'test-model')).toBe(true);
    expect(all[0]!.choices[0]!.delta.role).toBe('assistant');
    // One delta per scripted piece, after the role chunk.
    expect(all.slice(1, -1).map((chunk) => chunk.choices[0]!.delta.content)).toEqual([
      'Hel',
      'lo, ',
      'world',
      '!',
    ]);
    expect(contentOf(all)).toBe('Hello, world!');
    expect(all.at(-1)!.choices[0]).toEqual(expect.objectContaining({ delta: {}, finish_reason: 'stop' }));
    expect(all.slice(0, -1).every((chunk) => chunk.choices[0]!.finish_reason === null)).toBe(true);
    expect(all.some((chunk) => 'usage' in chunk)).toBe(false);
  });

  it('splits a plain string into word-sized deltas', async () => {
    expect(pieces('The quick  brown fox.')).toEqual(['The ', 'quick  ', 'brown ', 'fox.']);
    fixture.script({ text: 'The quick  brown fox.', intervalMs: 1 });
    const all = chunks(await streamChat(fixture));
    expect(contentOf(all)).toBe('The quick  brown fox.');
    expect(all).toHaveLength(1 + 4 + 1);
  });

  it('ends with a usage chunk (no choices) before [DONE] when stream_options.include_usage is set', async () => {
    fixture.script(
      { text: ['a', 'b', 'c'] },
      { text: ['x'], usage: { promptTokens: 7, completionTokens: 9 } },
    );
    const all = chunks(await streamChat(fixture, { stream_options: { include_usage: true } }));
    const last = all.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({
      prompt_tokens: expect.any(Number),
      completion_tokens: 3,
      total_tokens: last.usage!.prompt_tokens + 3,
    });
    expect(all.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
    expect(all.at(-2)!.choices[0]!.finish_reason).toBe('stop');

    const second = chunks(await streamChat(fixture, { stream_options: { include_usage: true } }));
    expect(second.at(-1)!.usage).toEqual({ prompt_tokens: 7, completion_tokens: 9, total_tokens: 16 });
  });

  it('streams tool calls as OpenAI does: id and name first, arguments in pieces, finish_reason tool_calls', async () => {
    const weather = { city: 'Paris', units: 'metric', days: [1, 2, 3], note: 'quotes " and \\ survive' };
    fixture.script({
      toolCalls: [
        { id: 'call_weather', name: 'get_weather', arguments: weather },
        { name: 'list_events', arguments: '{"from":"2025-01-01"}' },
      ],
    });
    const all = chunks(
      await streamChat(fixture, { tools: [{ type: 'function', function: { name: 'get_weather' } }] }),
    );
    const calls = new Map<
      number,
      { id?: string; type?: string; name?: string; args: string; pieces: number }
    >();
    for (const chunk of all) {
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
        const call = calls.get(delta.index);
        if (!call) {
          // The first delta of a call carries everything but the arguments.
          expect(delta.id).toEqual(expect.any(String));
          expect(delta.type).toBe('function');
          expect(delta.function.name).toEqual(expect.any(String));
          expect(delta.function.arguments).toBe('');
          calls.set(delta.index, {
            id: delta.id,
            type: delta.type,
            name: delta.function.name,
            args: '',
            pieces: 0,
          });
        } else {
          expect(delta.id).toBeUndefined();
          expect(delta.function.name).toBeUndefined();
          call.args += delta.function.arguments;
          call.pieces += 1;
        }
      }
    }
    expect([...calls.keys()]).toEqual([0, 1]);
    const first = calls.get(0)!;
    expect(first).toEqual(expect.objectContaining({ id: 'call_weather', name: 'get_weather' }));
    expect(first.pieces).toBeGreaterThan(1);
    expect(JSON.parse(first.args)).toEqual(weather);
    const second = calls.get(1)!;
    expect(second.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(second.name).toBe('list_events');
    expect(JSON.parse(second.args)).toEqual({ from: '2025-01-01' });
    expect(all.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('records each parsed request: model, messages, tools, stream flag, headers', async () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];
    await streamChat(fixture, {
      model: 'm1',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather?' },
      ],
      tools,
    });
    await fetch(`${fixture.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm2', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(fixture.requests).toHaveLength(2);
    expect(fixture.requests[0]).toEqual(
      expect.objectContaining({
        index: 0,
        model: 'm1',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Weather?' },
        ],
        tools,
        stream: true,
      }),
    );
    expect(fixture.requests[0]!.headers.authorization).toBe('Bearer anything');
    expect(fixture.requests[1]!.stream).toBe(false);
    expect(fixture.requests[1]!.tools).toBeUndefined();
  });

  it('answers the default text step when nothing is scripted, and steps are consumed one per request', async () => {
    fixture.script({ text: ['one'] });
    expect(fixture.pendingSteps).toBe(1);
    expect(contentOf(chunks(await streamChat(fixture)))).toBe('one');
    expect(fixture.pendingSteps).toBe(0);
    expect(contentOf(chunks(await streamChat(fixture)))).toBe(DEFAULT_FIXTURE_TEXT);
    fixture.setDefault({ text: ['other default'] });
    expect(contentOf(chunks(await streamChat(fixture)))).toBe('other default');
  });

  it('asks the responder first, falling back to the queue when it returns undefined', async () => {
    fixture.script({ text: ['queued'] });
    fixture.respond((request) =>
      request.messages.some((message) => message.role === 'tool') ? { text: ['after the tool'] } : undefined,
    );
    expect(contentOf(chunks(await streamChat(fixture)))).toBe('queued');
    const withTool = {
      messages: [
        { role: 'user', content: 'x' },
        { role: 'tool', tool_call_id: 'call_1', content: '{}' },
      ],
    };
    expect(contentOf(chunks(await streamChat(fixture, withTool)))).toBe('after the tool');
  });

  it('answers a scripted HTTP error with an OpenAI-style error body', async () => {
    fixture.script(
      { status: 500 },
      { status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after': '1' } },
    );
    const response = await fetch(`${fixture.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [], stream: true }),
    });
    expect(response.status).toBe(500);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({
      error: { message: expect.any(String), type: 'server_error', param: null, code: null },
    });
    const limited = await fetch(`${fixture.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [], stream: false }),
    });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(await limited.json()).toEqual({ error: { message: 'slow down' } });
  });

  it('rejects a body that is not JSON with 400 and unknown paths with 404, without recording them', async () => {
    const bad = await fetch(`${fixture.url}/chat/completions`, { method: 'POST', body: '{nope' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    expect((await fetch(`${fixture.url}/embeddings`, { method: 'POST', body: '{}' })).status).toBe(404);
    expect(fixture.requests).toHaveLength(0);
  });

  it('sends a chunk that is not valid JSON mid-stream for a malformed step', async () => {
    fixture.script({ malformed: true, text: ['fine ', 'so far'] });
    const sse = await streamChat(fixture);
    expect(sse.data.at(-1)).toBe('[DONE]');
    const parsed = sse.data.slice(0, -1).map((data) => {
      try {
        return JSON.parse(data) as Chunk;
      } catch {
        return 'malformed';
      }
    });
    expect(parsed.filter((chunk) => chunk === 'malformed')).toHaveLength(1);
    expect(parsed.at(-1)).toBe('malformed');
    expect(contentOf(parsed.slice(0, -1) as Chunk[])).toBe('fine so far');
  });

  it('answers stream: false with one chat.completion, for text and for tool calls', async () => {
    fixture.script(
      { text: 'Whole answer.' },
      { toolCalls: [{ id: 'call_a', name: 'lookup', arguments: { q: 1 } }] },
    );
    const post = () =>
      fetch(`${fixture.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm2', messages: [{ role: 'user', content: 'hi' }], stream: false }),
      });
    const text = await post();
    expect(text.headers.get('content-type')).toBe('application/json');
    expect(await text.json()).toEqual({
      id: expect.stringMatching(/^chatcmpl-/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'm2',
      system_fingerprint: 'fixture',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Whole answer.' },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: expect.any(Number), completion_tokens: 2, total_tokens: expect.any(Number) },
    });
    const tools = (await (await post()).json()) as {
      choices: { message: { content: null; tool_calls: unknown[] }; finish_reason: string }[];
    };
    expect(tools.choices[0]).toEqual(
      expect.objectContaining({
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'lookup', arguments: '{"q":1}' } },
          ],
        },
        finish_reason: 'tool_calls',
      }),
    );
  });

  it('emits N timestamp tokens for a tokens step: each the send hrtime and a space, monotonic, once each', async () => {
    const before = process.hrtime.bigint();
    fixture.script({ tokens: 25, intervalMs: 2 });
    const sse = await streamChat(fixture, { stream_options: { include_usage: true } });
    const all = chunks(sse);
    const tokenChunks = all.filter((chunk) => chunk.choices[0]?.delta.content);
    expect(tokenChunks).toHaveLength(25);
    const sent = tokenChunks.map((chunk) => {
      const content = chunk.choices[0]!.delta.content!;
      expect(content).toMatch(/^\d+ $/);
      return BigInt(content.trim());
    });
    for (let i = 1; i < sent.length; i += 1) expect(sent[i]! > sent[i - 1]!).toBe(true);
    expect(sent[0]! >= before).toBe(true);
    // Same clock: every token is received after it was sent.
    const received = sse.data
      .map((data, i) => ({ data, at: sse.receivedAt[i]! }))
      .filter(({ data }) => /"content":"\d+ "/.test(data))
      .map(({ at }) => at);
    expect(received).toHaveLength(25);
    received.forEach((at, i) => expect(at >= sent[i]!).toBe(true));
    expect(all.at(-1)!.usage!.completion_tokens).toBe(25);
  });

  it('keeps a tokens schedule absolute: token i is never sent before start + i * interval', async () => {
    fixture.script({ tokens: 10, intervalMs: 3 });
    const all = chunks(await streamChat(fixture));
    const sent = all
      .map((chunk) => chunk.choices[0]?.delta.content)
      .filter((content): content is string => !!content)
      .map((content) => BigInt(content.trim()));
    expect(sent).toHaveLength(10);
    // Token 0 is sent at the start, token i no earlier than its due time (start + i * 3 ms).
    sent.forEach((at, i) => expect(at - sent[0]! >= BigInt(i * 3) * 1_000_000n - 100_000n).toBe(true));
  });

  it('keeps a hanging stream open until the fixture closes, then ends it without [DONE]', async () => {
    fixture.script({ hang: true, text: ['partial'] });
    const pending = streamChat(fixture);
    await fixture.waitForRequests(1);
    await fixture.close();
    const sse = await pending;
    expect(sse.status).toBe(200);
    expect(sse.data).not.toContain('[DONE]');
    expect(JSON.parse(sse.data.at(-1)!).choices[0].delta.content).toBe('partial');
  });

  it('closes promptly while a hang step sent no headers at all', async () => {
    fixture.script({ hang: true, headers: false });
    const pending = fetch(`${fixture.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [], stream: true }),
    });
    await fixture.waitForRequests(1);
    await fixture.close();
    await expect(pending).rejects.toThrow();
  });

  it('keeps serving after a client goes away mid-stream', async () => {
    fixture.script({ tokens: 1000, intervalMs: 5 }, { text: ['next'] });
    const controller = new AbortController();
    const response = await fetch(`${fixture.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [], stream: true }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    expect(contentOf(chunks(await streamChat(fixture)))).toBe('next');
  });

  it('cuts the connection mid-stream for a drop step, after its text, and keeps serving', async () => {
    fixture.script({ drop: true, text: ['half ', 'an '] }, { text: ['next'] });
    const response = await fetch(`${fixture.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [], stream: true }),
    });
    expect(response.status).toBe(200);
    const decoder = new TextDecoder();
    let received = '';
    const reading = (async () => {
      for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
        received += decoder.decode(bytes, { stream: true });
      }
    })();
    await expect(reading).rejects.toThrow(/terminated/);
    expect(received).toContain('"content":"half "');
    expect(received).toContain('"content":"an "');
    expect(received).not.toContain('[DONE]');
    expect(contentOf(chunks(await streamChat(fixture)))).toBe('next');
  });

  it('streams reasoning_content deltas before the text of a step with reasoning, and returns it whole', async () => {
    fixture.script({ reasoning: ['Let me ', 'think.'], text: ['Yes.'] }, { reasoning: 'Hmm.', text: 'No.' });
    const deltas = chunks(await streamChat(fixture)).map((chunk) => chunk.choices[0]?.delta);
    expect(deltas.map((delta) => delta?.reasoning_content ?? delta?.content)).toEqual([
      '',
      'Let me ',
      'think.',
      'Yes.',
      undefined,
    ]);
    const whole = await fetch(`${fixture.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [], stream: false }),
    });
    const completion = (await whole.json()) as { choices: Array<{ message: unknown }> };
    expect(completion.choices[0].message).toMatchObject({
      content: 'No.',
      reasoning_content: 'Hmm.',
    });
  });

  it('sends an error object in place of a chunk for a streamError step, then [DONE]', async () => {
    fixture.script({ streamError: { message: 'out of memory', code: 500 }, text: ['so '] });
    const sse = await streamChat(fixture);
    expect(sse.data.at(-1)).toBe('[DONE]');
    expect(JSON.parse(sse.data.at(-2)!)).toEqual({
      error: { message: 'out of memory', type: 'server_error', code: 500 },
    });
    expect(contentOf(sse.data.slice(0, -2).map((data) => JSON.parse(data) as Chunk))).toBe('so ');
  });
});
