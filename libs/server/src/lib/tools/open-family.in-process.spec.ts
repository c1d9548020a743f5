/**
 * The family list is open (issue 19, item 4): a family declared here, in this file only, and handed to the
 * composition with the product's families, is in the catalogue (`GET /tools`), in MCP's `tools/list` and in what
 * the built-in model says it can do, and a language model is told what the family says of its tools — no kit,
 * contract, server, MCP or docs list names it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { toolListSchema, type QueryEvent } from '@assistant/contracts';
import { defineFamily, defineTool } from '@assistant/tool-kit';
import { FAMILIES } from './families';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';

/** A family no list in the product knows: tide times, over no connection. */
const tideFamily = defineFamily({
  name: 'tide',
  description: 'Tide times',
  instructions: () => 'Use tide_times when the user asks when the tide is high or low.',
  topic: { about: 'the tides', keywords: ['tide', 'tides'] },
  providers: [],
  tools: [
    defineTool()({
      name: 'tide_times',
      description: 'The times of high and low tide at a harbour today',
      input: z.object({ harbour: z.string() }),
      scope: 'read:tools',
      handler: async ({ harbour }) => ({ harbour, high: '06:12', low: '12:30' }),
    }),
  ],
  phrases: [
    {
      intent: 'tide.times',
      examples: ['when is high tide at Brest'],
      patterns: [/^when is (?:high|low) tide at (.+?)\??$/i],
      act: (m) => ({ kind: 'tool', tool: 'tide_times', input: { harbour: m[1] } }),
      offers: { tool: 'tide_times', can: 'tell the tide times at a harbour' },
    },
  ],
  answer: (_tool, output) => {
    const { harbour, high, low } = output as { harbour: string; high: string; low: string };
    return `At ${harbour}, high tide is at ${high} and low tide at ${low}.`;
  },
});

let api: InProcessApp;
let url: string;
beforeAll(async () => {
  api = await startInProcessApp({ families: [...FAMILIES, tideFamily] });
  url = await api.listen();
});
afterAll(() => api?.close());

/** The built-in model's answer to `text`, from the query's stream. */
async function answer(text: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/queries`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  expect(res.status).toBe(200);
  // The answer's words are in its stream's events, whatever their kinds.
  const events = (await res.text())
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as QueryEvent);
  return JSON.stringify(events);
}

describe('a tool family declared in one spec file', () => {
  it('is in the catalogue, with its family, scope and description', async () => {
    const res = await api.inject({ method: 'GET', url: '/api/v1/tools' });
    expect(res.statusCode).toBe(200);
    // As the contract (and so the OpenAPI document) describes the catalogue: no closed list of families.
    expect(toolListSchema.parse(res.json()).data).toContainEqual(
      expect.objectContaining({
        name: 'tide_times',
        family: 'tide',
        scope: 'read:tools',
        description: 'The times of high and low tide at a harbour today',
        active: true,
      }),
    );
  });

  it("is in MCP's tools/list and instructions", async () => {
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/api/v1/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${api.token}` } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('tide_times');
      expect(client.getInstructions()).toContain('tide');
    } finally {
      await client.close();
    }
  });

  it("is in the built-in model's help, and the model uses it", async () => {
    expect(await answer('what can you do?')).toContain('tell the tide times at a harbour');
    expect(await answer('when is high tide at Brest?')).toContain('At Brest, high tide is at 06:12');
  });
});

describe('a language model, for a run with the family’s tools', () => {
  let model: Server;
  let viaModel: InProcessApp;
  const requests: Array<{ messages: Array<{ role: string; content: unknown }> }> = [];
  beforeAll(async () => {
    // An OpenAI-compatible model that notes each request and answers at once.
    model = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        requests.push(JSON.parse(body));
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
      families: [...FAMILIES, tideFamily],
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

  it('is told what the family says of its tools, and nothing of a family the run has no tool of', async () => {
    const system = async (tools: string[]) => {
      requests.length = 0;
      const answer = await viaModel.inject({
        method: 'POST',
        url: '/api/v1/queries',
        payload: { text: 'hi', tools },
      });
      expect(answer.body).toContain('event: query.completed');
      return String(requests[0]?.messages.find((message) => message.role === 'system')?.content);
    };
    expect(await system(['tide_times'])).toContain(
      'Use tide_times when the user asks when the tide is high or low.',
    );
    const memoryOnly = await system(['memory_search']);
    expect(memoryOnly).toContain('Use memory_search when');
    expect(memoryOnly).not.toMatch(/tide_times|memory_save/);
  });
});
