import { closedPort, sendJson, startTestServer, type TestServer } from '../../test-support/http-test-server';
import { AssistantClient } from './client';
import { ConnectionError } from './errors';

// zod and the contract's schemas take ~60 ms of CPU to load: a client made with validateResponses: false
// (`assistant chat`) must never load them. Here loading zod fails the test.
jest.mock('zod', () => {
  throw new Error('zod was loaded');
});

const TOKEN = 'ast_test_token';
const EVENTS = [
  {
    type: 'query.created',
    sequence_number: 1,
    query_id: 'qry_1',
    discussion_id: 'dsc_1',
    message_id: 'msg_1',
    model: 'm',
  },
  { type: 'output_text.delta', sequence_number: 2, delta: 'Hi' },
  {
    type: 'query.completed',
    sequence_number: 3,
    message_id: 'msg_2',
    text: 'Hi',
    usage: { input_tokens: 1, output_tokens: 1 },
    finish_reason: 'stop',
  },
];

describe('a client that does not validate replies', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('streams a query, calls an operation and reports an unreachable server without loading zod', async () => {
    server = await startTestServer((request, res) => {
      if (request.path === '/api/v1/queries') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(
          EVENTS.map((event) => `id: ${event.sequence_number}\ndata: ${JSON.stringify(event)}\n\n`).join(''),
        );
      } else {
        sendJson(res, 200, { id: 'qry_1', status: 'cancelled' });
      }
    });
    const client = new AssistantClient({ baseUrl: server.url, token: TOKEN, validateResponses: false });

    const events = [];
    for await (const event of client.streamQuery({ text: 'hi' })) events.push(event);
    expect(events).toEqual(EVENTS);
    expect(await client.cancelQuery({ id: 'qry_1' })).toEqual({ id: 'qry_1', status: 'cancelled' });

    const port = await closedPort();
    const offline = new AssistantClient({
      baseUrl: `http://127.0.0.1:${port}`,
      token: TOKEN,
      validateResponses: false,
    });
    await expect(offline.getMe()).rejects.toBeInstanceOf(ConnectionError);
  });

  it('(the check works: a client that validates loads zod on its first reply)', async () => {
    server = await startTestServer((_request, res) =>
      sendJson(res, 200, { id: 'qry_1', status: 'cancelled' }),
    );
    const client = new AssistantClient({ baseUrl: server.url, token: TOKEN });

    await expect(client.cancelQuery({ id: 'qry_1' })).rejects.toThrow('zod was loaded');
  });
});
