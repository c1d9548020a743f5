/**
 * What a query's start may and may not put after the model call: storing the question (and a new discussion)
 * goes on while the model answers, yet the answer is stored after its question and before the terminal event,
 * a question that cannot be stored fails the query with no answer stored, and an unknown discussion is still a
 * 404 before any stream starts.
 */
import diagnostics from 'node:diagnostics_channel';
import { createServer, ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { QueryEvent } from '@assistant/contracts';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';

let api: InProcessApp;
let url: string;
beforeAll(async () => {
  // The built-in model unpaced: an answer is done well within the 300 ms that storing a question is held back.
  api = await startInProcessApp();
  url = await api.listen();
});
afterAll(() => api?.close());
afterEach(() => jest.restoreAllMocks());

/** Posts a query and reads its stream, noting when each event arrived. */
async function ask(body: Record<string, unknown>) {
  const res = await fetch(`${url}/api/v1/queries`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const events: Array<{ event: QueryEvent; at: number }> = [];
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
    return { status: res.status, problem: (await res.json()) as Record<string, unknown>, events };
  }
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    const blocks = buffered.split('\n\n');
    buffered = blocks.pop() ?? '';
    for (const block of blocks) {
      const data = block.split('\n').find((line) => line.startsWith('data: '));
      if (data) events.push({ event: JSON.parse(data.slice(6)) as QueryEvent, at: Date.now() });
    }
  }
  return { status: res.status, problem: undefined, events };
}

/** Holds the storing of questions (user messages) back by `ms`, noting when each was stored. */
function slowQuestions(ms: number) {
  const stored: number[] = [];
  const discussions = api.storage.discussions;
  const original = discussions.appendMessage.bind(discussions);
  jest.spyOn(discussions, 'appendMessage').mockImplementation(async (userId, discussionId, message, also) => {
    if (message.role === 'user') await new Promise((resolve) => setTimeout(resolve, ms));
    const result = await original(userId, discussionId, message, also);
    if (message.role === 'user') stored.push(Date.now());
    return result;
  });
  // A new discussion is stored with its question.
  const create = discussions.createWithMessage.bind(discussions);
  jest.spyOn(discussions, 'createWithMessage').mockImplementation(async (...args) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    const result = await create(...args);
    stored.push(Date.now());
    return result;
  });
  return stored;
}

const messagesOf = async (discussionId: string) =>
  (await api.storage.discussions.recentMessages(api.userId, discussionId, 10)).map((m) => [m.role, m.text]);

describe('the start of a query', () => {
  it('streams the answer while the question is being stored, and stores the answer after it, before the end', async () => {
    const questionStored = slowQuestions(300);
    const { events } = await ask({ text: 'hello' });
    const created = events[0].event;
    expect(created.type).toBe('query.created');
    const firstDelta = events.find((e) => e.event.type === 'output_text.delta');
    const terminal = events.at(-1)!;
    // The model did not wait for the write...
    expect(firstDelta!.at).toBeLessThan(questionStored[0]);
    // ...but the end did (the answer itself was done long before), and the discussion reads question then answer.
    expect(terminal.event.type).toBe('query.completed');
    expect(terminal.at).toBeGreaterThanOrEqual(questionStored[0]);
    const discussionId = (created as Extract<QueryEvent, { type: 'query.created' }>).discussion_id;
    expect(await messagesOf(discussionId)).toEqual([
      ['user', 'hello'],
      ['assistant', (terminal.event as Extract<QueryEvent, { type: 'query.completed' }>).text],
    ]);
  });

  it('continues a discussion the same way: history read first, the new question stored beside the model call', async () => {
    const first = await ask({ text: 'hello' });
    const discussionId = (first.events[0].event as Extract<QueryEvent, { type: 'query.created' }>)
      .discussion_id;
    slowQuestions(200);
    const second = await ask({ text: 'help', discussion_id: discussionId });
    expect(second.events.at(-1)?.event.type).toBe('query.completed');
    expect(
      (await messagesOf(discussionId)).map(([role, text]) => `${role}: ${role === 'user' ? text : '…'}`),
    ).toEqual(['user: hello', 'assistant: …', 'user: help', 'assistant: …']);
  });

  it('fails the query, and stores no answer, when the question cannot be stored', async () => {
    const discussions = api.storage.discussions;
    const original = discussions.appendMessage.bind(discussions);
    jest
      .spyOn(discussions, 'appendMessage')
      .mockImplementation(async (userId, discussionId, message, also) => {
        if (message.role === 'user') throw new Error('disk full');
        return original(userId, discussionId, message, also);
      });
    jest.spyOn(discussions, 'createWithMessage').mockRejectedValue(new Error('disk full'));
    const { events } = await ask({ text: 'hello' });
    const created = events[0].event as Extract<QueryEvent, { type: 'query.created' }>;
    expect(events.at(-1)?.event).toMatchObject({
      type: 'query.failed',
      error: { code: 'internal', detail: 'the question could not be stored' },
    });
    expect(
      events.filter((e) => e.event.type.startsWith('query.') && e.event.type !== 'query.created'),
    ).toHaveLength(1);
    expect(await messagesOf(created.discussion_id)).toEqual([]);
    const query = await api.inject({ method: 'GET', url: `/api/v1/queries/${created.query_id}` });
    expect(query.json()).toMatchObject({ status: 'failed' });
  });

  it('answers an unknown discussion with 404 before any stream starts, storing nothing', async () => {
    const appendMessage = jest.spyOn(api.storage.discussions, 'appendMessage');
    const { status, problem, events } = await ask({
      text: 'hello',
      discussion_id: 'dsc_01jx0000000000000000000000',
    });
    expect(status).toBe(404);
    expect(problem).toMatchObject({ code: 'not_found' });
    expect(events).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(appendMessage).not.toHaveBeenCalled();
  });
});

describe('the refusals of a query start', () => {
  let capped: InProcessApp;
  beforeAll(async () => {
    // One run at a time, and a paced built-in model: a run holds the account's only slot for a while.
    capped = await startInProcessApp({
      env: { ASSISTANT_MAX_CONCURRENT_QUERIES: '1', ASSISTANT_BUILTIN_PACING_MS: '5' },
    });
  });
  afterAll(() => capped?.close());

  const unknownDiscussion = 'dsc_01jx0000000000000000000000';
  const post = (payload: Record<string, unknown>) =>
    capped.inject({ method: 'POST', url: '/api/v1/queries', payload });

  it('gives the run slot back when it refuses a query', async () => {
    expect((await post({ text: 'hello', discussion_id: unknownDiscussion })).statusCode).toBe(404);
    expect((await post({ text: 'hello', tools: ['no_such_tool'] })).statusCode).toBe(422);
    const answered = await post({ text: 'hello' });
    expect(answered.statusCode).toBe(200);
    expect(answered.body).toContain('event: query.completed');
  });

  it('refuses as its checks come one after another: an unknown tool, then the cap, then an unknown discussion', async () => {
    const running = await fetch(`${await capped.listen()}/api/v1/queries`, {
      method: 'POST',
      headers: { authorization: `Bearer ${capped.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hello' }),
    });
    expect(running.status).toBe(200);
    const refused = await post({ text: 'hello', tools: ['no_such_tool'], discussion_id: unknownDiscussion });
    expect(refused.json()).toMatchObject({ code: 'validation_failed' });
    expect((await post({ text: 'hello', discussion_id: unknownDiscussion })).json()).toMatchObject({
      code: 'rate_limited',
    });
    await running.text();
    expect((await post({ text: 'hello', discussion_id: unknownDiscussion })).json()).toMatchObject({
      code: 'not_found',
    });
  });
});

describe('the model call of a query start', () => {
  let model: Server;
  let viaModel: InProcessApp;
  beforeAll(async () => {
    // An OpenAI-compatible model that answers at once.
    model = createServer((request, response) => {
      request.resume().on('end', () => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(
          [
            '{"choices":[{"index":0,"delta":{"content":"Hi."}}]}',
            '{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
            '[DONE]',
          ]
            .map((data) => `data: ${data}\n\n`)
            .join(''),
        );
      });
    });
    await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
    viaModel = await startInProcessApp({
      env: {
        ASSISTANT_MODEL: 'openai-compatible:stub',
        ASSISTANT_MODEL_BASE_URL: `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`,
      },
    });
  });
  afterAll(async () => {
    await viaModel?.close();
    await new Promise((resolve) => model?.close(resolve));
  });

  it("writes the model's request before the stream's headers, which it sends while the model thinks", async () => {
    const order: string[] = [];
    const modelRequestWritten = () => order.push('model request');
    diagnostics.subscribe('undici:client:sendHeaders', modelRequestWritten);
    const writeHead = ServerResponse.prototype.writeHead;
    jest.spyOn(ServerResponse.prototype, 'writeHead').mockImplementation(function (
      this: ServerResponse,
      ...args: Parameters<typeof writeHead>
    ) {
      if (this.req?.url === '/api/v1/queries') order.push('stream headers');
      return writeHead.apply(this, args);
    });
    try {
      // The second query reuses the kept-alive connection to the model (the first one opens it).
      for (const _ of [1, 2]) {
        order.length = 0;
        const answer = await viaModel.inject({
          method: 'POST',
          url: '/api/v1/queries',
          payload: { text: 'hi' },
        });
        expect(answer.body).toContain('event: query.completed');
      }
      expect(order).toEqual(['model request', 'stream headers']);
    } finally {
      diagnostics.unsubscribe('undici:client:sendHeaders', modelRequestWritten);
    }
  });
});
