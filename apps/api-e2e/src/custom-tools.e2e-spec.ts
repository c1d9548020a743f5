import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCredentials, credentialsFileIn } from '@assistant/client/local';
import { BUILT, run, startServer, WORKSPACE_ROOT, type ServerProcess } from './support/processes';

/** A user's tool module, as the README shows it: ESM, the kit's defineTool and its zod. */
const ORDER_STATUS = `import { defineTool, z } from '@assistant/tool-kit';

export default defineTool({
  name: 'custom_order_status',
  description: 'Where an order of the shop is',
  input: z.object({ id: z.string().describe('the order number, e.g. A-17') }),
  handler: async ({ id }) => ({ id, status: 'shipped' }),
});
`;

/** The same in CommonJS, added while the server runs. */
const STOCK = `const { defineTool, z } = require('@assistant/tool-kit');

module.exports = defineTool({
  name: 'custom_stock',
  description: 'How many of an article the shop has',
  input: z.object({ sku: z.string() }),
  handler: async ({ sku }) => \`\${sku}: 12 in stock\`,
});
`;

/** Polls `check` until it returns something, for what a server does a moment after a file changed. */
async function eventually<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Custom tool handlers end to end: `assistant serve --tools <dir>` with a user's module, `assistant chat` calling
 * it through the built-in model, `GET /api/v1/tools` listing it, and the folder reloaded as it changes.
 */
describe('custom tools of a self-hosted server', () => {
  let root: string;
  let tools: string;
  let dataDir: string;
  let server: ServerProcess;
  const chat = (...args: string[]) => run(BUILT.cli, ['chat', ...args], { ASSISTANT_DATA_DIR: dataDir });
  const listTools = async () => {
    const { base_url, token } = readCredentials(credentialsFileIn(dataDir))!;
    const res = await fetch(`${base_url}/api/v1/tools`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as {
      data: Array<{ name: string; family: string; description: string; scope: string; active: boolean }>;
    };
    return data.filter((tool) => tool.family === 'custom');
  };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'assistant-custom-tools-e2e-'));
    dataDir = join(root, 'data');
    tools = join(root, 'my-tools');
    // As `npm install @assistant/tool-kit` in the tools folder leaves it: the kit beside the modules.
    mkdirSync(join(tools, 'node_modules', '@assistant'), { recursive: true });
    symlinkSync(
      join(WORKSPACE_ROOT, 'libs/tools/kit'),
      join(tools, 'node_modules/@assistant/tool-kit'),
      'dir',
    );
    writeFileSync(join(tools, 'orders.mjs'), ORDER_STATUS);
    server = await startServer(
      BUILT.cli,
      ['serve', '--data-dir', dataDir, '--port', '0', '--tools', tools],
      {},
    );
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('loads the module at start, lists it in GET /tools and runs it for `assistant chat`', async () => {
    expect(server.output()).toContain(`tools:       ${tools} (custom_order_status)`);
    expect(await listTools()).toEqual([
      {
        name: 'custom_order_status',
        family: 'custom',
        description: 'Where an order of the shop is',
        input_schema: expect.objectContaining({
          properties: { id: { type: 'string', description: 'the order number, e.g. A-17' } },
          required: ['id'],
        }),
        scope: 'read:tools',
        side_effects: false,
        active: true,
      },
    ]);
    const answered = await chat('run custom_order_status with id=A-17');
    expect(answered.stderr).toBe('');
    expect(answered.code).toBe(0);
    expect(answered.stdout).toBe('custom_order_status answered with id A-17 and status shipped.\n');
  });

  it('loads a module added while it runs, a changed one again, and skips a broken one with one log line', async () => {
    writeFileSync(join(tools, 'stock.cjs'), STOCK);
    await eventually(
      async () => ((await listTools()).some((t) => t.name === 'custom_stock') ? true : undefined),
      'custom_stock to be listed',
    );
    expect((await chat('run custom_stock with sku=tea')).stdout).toBe(
      'custom_stock says: tea: 12 in stock.\n',
    );

    writeFileSync(join(tools, 'orders.mjs'), ORDER_STATUS.replace("'shipped'", "'delivered'"));
    await eventually(async () => {
      const { stdout } = await chat('run custom_order_status with id=A-17');
      return stdout.includes('delivered') ? stdout : undefined;
    }, 'the changed handler to answer');

    writeFileSync(join(tools, 'broken.mjs'), 'export default {;\n');
    const line = await eventually(
      async () =>
        server
          .output()
          .split('\n')
          .find((l) => l.includes('broken.mjs skipped')),
      'the log line of the broken module',
    );
    expect(JSON.parse(line)).toMatchObject({
      level: 40,
      file: join(tools, 'broken.mjs'),
      msg: expect.stringMatching(/skipped: syntax error: Unexpected token/),
    });
    expect((await listTools()).map((t) => t.name)).toEqual(['custom_order_status', 'custom_stock']);

    rmSync(join(tools, 'stock.cjs'));
    await eventually(
      async () => ((await listTools()).some((t) => t.name === 'custom_stock') ? undefined : true),
      'custom_stock to go',
    );
    expect(
      server
        .output()
        .split('\n')
        .filter((l) => l.includes('broken.mjs skipped')),
    ).toHaveLength(1);
  });

  it('refuses to start on a --tools folder that is not there, in one line', async () => {
    const missing = join(root, 'no-such-folder');
    const refused = await run(
      BUILT.cli,
      ['serve', '--data-dir', join(root, 'other-data'), '--port', '0', '--tools', missing],
      {},
      undefined,
      20_000,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `assistant: the custom tools folder ${missing} does not exist or is no folder\n`,
    );
  });
});
