/**
 * The family list is open (issue 19, item 4): a family declared here, in this file only, and handed to the
 * composition with the product's families, is in the catalogue (`GET /tools`), in MCP's `tools/list` and in what
 * the built-in model says it can do — no kit, contract, server, MCP or docs list names it.
 */
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
