import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BUILT, childEnv } from './support/processes';
import { startHosted, type Target } from './support/targets';

/**
 * The cloud mode: the hosted API on PostgreSQL, reached by an MCP client through the launcher with
 * ASSISTANT_BASE_URL (as a hosted user configures it), lists the account's tools and calls one.
 */
describe('MCP against the hosted API', () => {
  let target: Target;
  let client: Client | undefined;

  beforeAll(async () => {
    target = await startHosted();
  });
  afterAll(async () => {
    await client?.close();
    await target?.stop();
  });

  it("lists the hosted account's tools and saves and finds a memory through them", async () => {
    client = new Client({ name: 'mcp-hosted-e2e', version: '0.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BUILT.mcp],
        env: childEnv({ ASSISTANT_API_TOKEN: target.ownerToken, ASSISTANT_BASE_URL: target.url }) as Record<
          string,
          string
        >,
        stderr: 'pipe',
      }),
    );
    const names = (await client.listTools()).tools.map((t) => t.name);
    // The hosted API has no local folders: memory and the web, and no files tools.
    expect(names).toEqual(['memory_forget', 'memory_save', 'memory_search', 'web_fetch']);
    await client.callTool({ name: 'memory_save', arguments: { content: 'the hosted gate code is 1234' } });
    const found = await client.callTool({ name: 'memory_search', arguments: { query: 'gate code' } });
    expect(JSON.stringify(found.content)).toContain('1234');
  });
});
