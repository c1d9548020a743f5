/**
 * What the server tells a language model of the account (issue 21): the user's name and the connections of the
 * families whose tools the run may use — and, for a narrower token, not those of the others. The model here is a
 * stub OpenAI-compatible server (it stands in for a language model, which cannot run on this machine) that
 * records each request and answers "ok".
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SecretBox } from '../tools/secret-box';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';

interface ChatRequest {
  messages: Array<{ role: string; content: unknown }>;
}

let stubModel: Server;
const requests: ChatRequest[] = [];
let api: InProcessApp;

async function bodyOf(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

beforeAll(async () => {
  stubModel = createServer((req, res) => {
    void bodyOf(req).then((body) => {
      requests.push(JSON.parse(body) as ChatRequest);
      const chunk = (delta: object, finish: string | null) =>
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'stub', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`${chunk({ role: 'assistant', content: 'ok' }, null)}${chunk({}, 'stop')}data: [DONE]\n\n`);
    });
  });
  await new Promise<void>((resolve) => stubModel.listen(0, '127.0.0.1', resolve));
  const { port } = stubModel.address() as AddressInfo;
  api = await startInProcessApp({
    env: {
      ASSISTANT_MODEL: 'openai-compatible:stub',
      ASSISTANT_MODEL_BASE_URL: `http://127.0.0.1:${port}/v1`,
      ASSISTANT_TIMEZONE: 'Pacific/Auckland',
    },
  });
  const box = api.app.get(SecretBox);
  await api.storage.connections.create(api.userId, {
    family: 'email',
    provider: 'imap',
    name: 'Work mail',
    settings: { imap_host: 'mail.example.test', smtp_host: 'mail.example.test', username: 'ada' },
    sealedSecrets: box.seal({ password: 'secret' }, api.userId),
    status: 'ok',
    lastError: null,
  });
});
afterAll(async () => {
  await api?.close();
  await new Promise((resolve) => stubModel?.close(resolve));
});

async function systemPromptFor(token: string) {
  requests.length = 0;
  const res = await api.inject({ method: 'POST', url: '/api/v1/queries', payload: { text: 'hi' }, token });
  expect(res.payload).toContain('query.completed');
  return String(requests[0].messages[0].content);
}

describe('the system prompt the server gives a language model', () => {
  it("carries the user's name, local time and time zone, and the connections the run's tools go through", async () => {
    const me = await api.storage.users.findById(api.userId);
    const system = await systemPromptFor(api.token);
    expect(system).toContain(`The user's name is ${me?.displayName}.`);
    expect(system).toMatch(
      /It is \w+day \d{4}-\d\d-\d\d, \d\d:\d\d \(GMT\+1[23]\) for the user \(time zone Pacific\/Auckland\)/,
    );
    expect(system).toContain('- email: "Work mail"');
  });

  it('names no connection of a family whose tools the token may not use', async () => {
    const system = await systemPromptFor(await api.issueToken(['read:memories', 'write:queries']));
    expect(system).not.toContain('Work mail');
    expect(system).not.toContain('- email:');
  });
});
