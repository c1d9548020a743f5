import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AssistantClient } from '@assistant/client';
import { readCredentials, credentialsFileIn } from '@assistant/client/local';
import { BUILT, run, startServer, type ServerProcess } from './support/processes';

/**
 * The web family end to end: `assistant chat` asks a real `assistant serve` (built-in model) about a page of a
 * local site. Loopback is refused unless the operator allows it: one server without, one with the allow-list.
 */
describe('web pages through a query', () => {
  let site: Server;
  let page: string;
  const servers: Array<{ dataDir: string; server: ServerProcess }> = [];

  async function serve(env: Record<string, string>) {
    const dataDir = mkdtempSync(join(tmpdir(), 'assistant-web-'));
    const server = await startServer(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', '0'], env);
    servers.push({ dataDir, server });
    const chat = (text: string) => run(BUILT.cli, ['chat', '--json', text], { ASSISTANT_DATA_DIR: dataDir });
    return { dataDir, chat };
  }
  const events = (stdout: string) =>
    stdout
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as { type: string; text?: string; status?: string; tool?: string; error?: string },
      );

  beforeAll(async () => {
    site = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end('<title>Bakery</title><p>Fresh bread every morning. Closed on Mondays.</p>');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    page = `http://127.0.0.1:${(site.address() as AddressInfo).port}/hours`;
  });
  afterAll(async () => {
    for (const { server, dataDir } of servers) {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
    site.close();
  });

  it('reads an allowed page and answers from it; GET /tools shows web_fetch active with no setup', async () => {
    const { dataDir, chat } = await serve({ ASSISTANT_ALLOW_PRIVATE_HOSTS: '127.0.0.1/32' });
    const asked = await chat(`what does ${page} say?`);
    expect(asked.code).toBe(0);
    const stream = events(asked.stdout);
    expect(stream.find((e) => e.type === 'tool_call.completed')).toMatchObject({
      tool: 'web_fetch',
      status: 'ok',
    });
    expect(stream.at(-1)).toMatchObject({
      type: 'query.completed',
      text: '“Bakery” says: Fresh bread every morning. Closed on Mondays.',
    });

    const credentials = readCredentials(credentialsFileIn(dataDir))!;
    const client = new AssistantClient({ baseUrl: credentials.base_url, token: credentials.token });
    const { data } = await client.listTools();
    expect(data.find((tool) => tool.name === 'web_fetch')).toMatchObject({
      family: 'web',
      scope: 'read:web',
      side_effects: false,
      active: true,
    });
  });

  it('refuses the same page on a server whose operator allowed nothing, in a plain sentence', async () => {
    const { chat } = await serve({});
    const stream = events((await chat(`what does ${page} say?`)).stdout);
    expect(stream.find((e) => e.type === 'tool_call.completed')).toMatchObject({
      status: 'error',
      error: expect.stringContaining('127.0.0.1 is a private or local address'),
    });
    expect(stream.at(-1)).toMatchObject({
      type: 'query.completed',
      text: expect.stringMatching(/^I couldn't do that: 127\.0\.0\.1 is a private or local address/),
    });
  });
});
