import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { callTool } from '@assistant/tool-kit';
import type { MemoriesRepository } from '@assistant/storage';
import type { ServerConfig } from '@assistant/server-kit';
import { ToolCatalog } from '../tool-catalog';
import { importWithNode, makeToolsFolder, toolModule, type ToolsFolder } from '../../../testing/custom-tools';
import { CustomToolsFolder, type SkippedModule } from './custom-tools-folder';
import { customFamily } from './custom-family';

const ORDER_STATUS = toolModule(
  "name: 'custom_order_status', description: 'Where an order is', input: z.object({ id: z.string() })",
  "return { id: input.id, status: 'shipped' };",
);

const context = () => ({
  userId: 'usr_1',
  discussionId: null,
  timeZone: 'UTC',
  signal: new AbortController().signal,
  notify: () => undefined,
});

let folder: ToolsFolder;
let skipped: SkippedModule[];
let tools: CustomToolsFolder;

beforeEach(() => {
  folder = makeToolsFolder();
  skipped = [];
  tools = new CustomToolsFolder({
    folder: folder.path,
    importModule: importWithNode,
    onSkipped: (module) => skipped.push(module),
    settleMs: 20,
  });
});
afterEach(() => {
  tools.close();
  folder.close();
});

const names = () => tools.tools.map((tool) => tool.name);
const reasons = () => skipped.map(({ file, reason }) => [file.slice(folder.path.length + 1), reason]);

describe('loading a tools folder', () => {
  it('loads each good module and skips each bad one with its file and reason, once', async () => {
    folder.write('a-orders.mjs', ORDER_STATUS);
    folder.write(
      'echo.cjs',
      [
        "const { defineTool, z } = require('@assistant/tool-kit');",
        "module.exports = defineTool({ name: 'custom_echo', description: 'Says it back', side_effects: true,",
        '  input: z.object({ text: z.string() }), handler: async ({ text }) => text });',
      ].join('\n'),
    );
    folder.write('b-duplicate.mjs', ORDER_STATUS);
    folder.write('throws.mjs', "throw new Error('no database configured');\n");
    folder.write('syntax.mjs', "import { defineTool } from '@assistant/tool-kit';\nexport default {;\n");
    folder.write(
      'syntax.cjs',
      "const { defineTool } = require('@assistant/tool-kit');\nmodule.exports = {;\n",
    );
    folder.write('no-default.mjs', 'export const tool = 1;\n');
    folder.write('plain.mjs', "export default { name: 'custom_plain', description: 'x', handler() {} };\n");
    folder.write('named.mjs', toolModule("name: 'order_total', description: 'x', input: z.object({})"));
    folder.write('reexport.js', "module.exports = require('./echo.cjs');\n");
    folder.write(
      'scope.mjs',
      toolModule("name: 'custom_wide', description: 'x', scope: 'read:everything', input: z.object({})"),
    );
    folder.write('notes.txt', 'not a module');
    folder.write('.hidden.mjs', ORDER_STATUS);

    await tools.load();

    expect(names()).toEqual(['custom_order_status', 'custom_echo']);
    expect(reasons()).toEqual([
      ['b-duplicate.mjs', 'a-orders.mjs already defines custom_order_status; tool names must be unique'],
      [
        'named.mjs',
        'its name order_total is not custom_<verb>: custom tools are named custom_<verb> in snake_case (e.g. custom_order_status)',
      ],
      ['no-default.mjs', 'it has no default export (`export default defineTool({...})`)'],
      [
        'plain.mjs',
        'its default export is not made by defineTool (`export default defineTool({...})` of @assistant/tool-kit)',
      ],
      ['reexport.js', 'echo.cjs already defines custom_echo; tool names must be unique'],
      ['scope.mjs', 'its scope read:everything is no scope of this server'],
      ['syntax.cjs', "syntax error on line 2: Unexpected token ';'"],
      [
        'syntax.mjs',
        `syntax error: Unexpected token ';' (\`node --check ${folder.path}/syntax.mjs\` shows where)`,
      ],
      ['throws.mjs', 'it threw while loading: no database configured'],
    ]);
    const [orders, echo] = tools.tools;
    expect(orders).toMatchObject({ scope: 'read:tools', side_effects: false });
    expect(echo).toMatchObject({ scope: 'write:tools', side_effects: true });
    expect(await callTool({ ...orders, driver: undefined }, { id: 'A-17' }, context(), 1000)).toEqual({
      id: 'A-17',
      status: 'shipped',
    });

    // Read again unchanged: nothing is logged twice.
    await tools.load();
    expect(skipped).toHaveLength(9);
  });

  it('skips a tool with side effects whose scope only reads, however the module got it past defineTool', async () => {
    // The kit refuses it at defineTool; a module still gets one by changing its tool afterwards (or through an
    // older copy of the kit), and a getter could even answer differently each time it is read.
    folder.write(
      'direct.mjs',
      toolModule(
        "name: 'custom_refund', description: 'x', side_effects: true, scope: 'read:tools', input: z.object({})",
      ),
    );
    folder.write(
      'changed.mjs',
      [
        "import { defineTool, z } from '@assistant/tool-kit';",
        "const tool = defineTool({ name: 'custom_wipe', description: 'x', side_effects: true, input: z.object({}), handler: async () => 'ok' });",
        "tool.scope = 'read:emails';",
        'export default tool;',
        '',
      ].join('\n'),
    );
    folder.write(
      'getter.mjs',
      [
        "import { defineTool, z } from '@assistant/tool-kit';",
        "const tool = defineTool({ name: 'custom_flip', description: 'x', input: z.object({}), handler: async () => 'ok' });",
        'let reads = 0;',
        "Object.defineProperty(tool, 'side_effects', { get: () => reads++ > 0, enumerable: true });",
        'export default tool;',
        '',
      ].join('\n'),
    );
    folder.write(
      'fine.mjs',
      toolModule(
        "name: 'custom_mail', description: 'x', side_effects: true, scope: 'write:emails', input: z.object({})",
      ),
    );
    await tools.load();
    expect(reasons()).toEqual([
      [
        'changed.mjs',
        'a tool with side effects needs a write: scope (write:tools when none is given), not read:emails',
      ],
      [
        'direct.mjs',
        'it threw while loading: custom_refund: a tool with side effects needs a write: scope (write:tools when none is given), not read:tools',
      ],
    ]);
    // What was checked is what the catalogue has: read once, its fields plain values from then on.
    expect(names()).toEqual(['custom_mail', 'custom_flip']);
    for (const tool of tools.tools) {
      expect(tool.side_effects).toBe(tool.side_effects);
      if (tool.side_effects) expect(tool.scope).toMatch(/^write:/);
    }
  });

  it('skips a module whose definition throws when read, and loads the others', async () => {
    folder.write('a-orders.mjs', ORDER_STATUS);
    folder.write(
      'trap.mjs',
      [
        "import { defineTool, z } from '@assistant/tool-kit';",
        "const tool = defineTool({ name: 'custom_trap', description: 'x', input: z.object({}), handler: async () => 'ok' });",
        "Object.defineProperty(tool, 'scope', { get() { throw new Error('no scope today'); }, enumerable: true });",
        'export default tool;',
        '',
      ].join('\n'),
    );
    await tools.load();
    expect(names()).toEqual(['custom_order_status']);
    expect(reasons()).toEqual([['trap.mjs', 'its definition cannot be read: no scope today']]);
  });

  it('says how to install the kit when a module cannot import it', async () => {
    folder.remove('node_modules');
    folder.write('orders.mjs', ORDER_STATUS);
    await tools.load();
    expect(names()).toEqual([]);
    expect(reasons()).toEqual([
      [
        'orders.mjs',
        expect.stringMatching(
          /^it cannot be loaded: Cannot find package '@assistant\/tool-kit' .*\(run `npm install @assistant\/tool-kit` in the tools folder\)$/,
        ),
      ],
    ]);
  });

  it('turns whatever a handler throws into an Error with a message', async () => {
    folder.write(
      'odd.mjs',
      toolModule("name: 'custom_odd', description: 'x', input: z.object({})", "throw 'the shop is closed';"),
    );
    await tools.load();
    await expect(tools.tools[0].handler({}, { ...context(), driver: undefined })).rejects.toThrow(
      new Error('the shop is closed'),
    );
  });
});

describe('a tools folder that changes while the server runs', () => {
  it('adds, changes and removes tools, and tells every account of the catalogue', async () => {
    folder.write('orders.mjs', ORDER_STATUS);
    await tools.load();
    const catalog = new ToolCatalog(
      [customFamily(tools)],
      { activeConnections: async () => [] },
      {} as MemoriesRepository,
      { deployment: 'self-hosted', allowPrivateHosts: [], localFolders: [] } as unknown as ServerConfig,
    );
    const told = { usr_a: 0, usr_b: 0 };
    catalog.onChange('usr_a', () => told.usr_a++);
    catalog.onChange('usr_b', () => told.usr_b++);
    const listed = async () => (await catalog.list('usr_a')).map((t) => [t.name, t.family, t.active]);
    expect(await listed()).toEqual([['custom_order_status', 'custom', true]]);
    tools.watch();
    const changed = () =>
      new Promise<void>((resolve) => {
        const stop = tools.onChange(() => {
          stop();
          resolve();
        });
      });

    // Added.
    let next = changed();
    folder.write('greet.mjs', toolModule("name: 'custom_greet', description: 'x', input: z.object({})"));
    await next;
    expect(await listed()).toEqual([
      ['custom_greet', 'custom', true],
      ['custom_order_status', 'custom', true],
    ]);
    expect(told).toEqual({ usr_a: 1, usr_b: 1 });

    // Changed: the new handler answers.
    next = changed();
    folder.write('orders.mjs', ORDER_STATUS.replace("'shipped'", "'delivered'"));
    await next;
    const { tools: run } = await catalog.forRun({ userId: 'usr_b', scopes: ['read:tools'] });
    const orders = run.find((t) => t.name === 'custom_order_status')!;
    expect(await callTool(orders, { id: '1' }, context(), 1000)).toEqual({ id: '1', status: 'delivered' });
    expect(told).toEqual({ usr_a: 2, usr_b: 2 });

    // Removed.
    next = changed();
    folder.remove('greet.mjs');
    await next;
    expect(await listed()).toEqual([['custom_order_status', 'custom', true]]);
    expect(told).toEqual({ usr_a: 3, usr_b: 3 });

    // Broken: skipped with its reason, and its tool leaves; fixed: back.
    next = changed();
    folder.write('orders.mjs', 'export default {;');
    await next;
    expect(await listed()).toEqual([]);
    expect(reasons()).toEqual([['orders.mjs', expect.stringMatching(/^syntax error: Unexpected token ';'/)]]);
    next = changed();
    folder.write('orders.mjs', ORDER_STATUS);
    await next;
    expect(await listed()).toEqual([['custom_order_status', 'custom', true]]);
    expect(told).toEqual({ usr_a: 5, usr_b: 5 });
    await catalog.onApplicationShutdown();
  });
});

describe('a module that failed to load', () => {
  /** The next change of the tools, or a failure after 3 s: a module never tried again never changes them. */
  const changed = () =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the tools did not change within 3 s')), 3_000);
      const stop = tools.onChange(() => {
        stop();
        clearTimeout(timer);
        resolve();
      });
    });

  it('loads once what it was missing is installed, without an edit of its own', async () => {
    folder.remove('node_modules');
    folder.write('orders.mjs', ORDER_STATUS);
    await tools.load();
    expect(names()).toEqual([]);
    tools.watch();

    // `npm install @assistant/tool-kit` in the tools folder: its node_modules appears.
    const next = changed();
    folder.installKit();
    await next;
    expect(names()).toEqual(['custom_order_status']);
  });

  it('is tried again when its file is touched, as when a file it imports outside the folder is fixed', async () => {
    const helper = join(folder.path, '..', 'shared', 'status.mjs');
    folder.write(
      'orders.mjs',
      ["import { status } from '../shared/status.mjs';", ORDER_STATUS.replace("'shipped'", 'status')].join(
        '\n',
      ),
    );
    await tools.load();
    expect(names()).toEqual([]);
    expect(reasons()).toEqual([
      ['orders.mjs', expect.stringMatching(/^it cannot be loaded: Cannot find module/)],
    ]);
    tools.watch();

    mkdirSync(dirname(helper));
    writeFileSync(helper, "export const status = 'packed';\n");
    const next = changed();
    const now = new Date();
    utimesSync(join(folder.path, 'orders.mjs'), now, now);
    await next;
    expect(names()).toEqual(['custom_order_status']);
    expect(await callTool({ ...tools.tools[0], driver: undefined }, { id: '1' }, context(), 1000)).toEqual({
      id: '1',
      status: 'packed',
    });
  });

  it('imports its helper afresh when tried again, so that a fixed syntax error in the helper is seen', async () => {
    const helper = join(folder.path, 'lib', 'status.mjs');
    mkdirSync(dirname(helper));
    writeFileSync(helper, 'export const status = {;\n');
    folder.write(
      'orders.mjs',
      ["import { status } from './lib/status.mjs';", ORDER_STATUS.replace("'shipped'", 'status')].join('\n'),
    );
    await tools.load();
    expect(reasons()).toEqual([['orders.mjs', expect.stringMatching(/^syntax error/)]]);
    tools.watch();

    writeFileSync(helper, "export const status = 'packed';\n");
    const next = changed();
    const now = new Date();
    utimesSync(join(folder.path, 'orders.mjs'), now, now);
    await next;
    expect(await callTool({ ...tools.tools[0], driver: undefined }, { id: '1' }, context(), 1000)).toEqual({
      id: '1',
      status: 'packed',
    });
  });

  it('is read again with its helpers when a helper in a folder beside it changes, without a touch', async () => {
    const helper = join(folder.path, 'lib', 'status.mjs');
    mkdirSync(dirname(helper));
    writeFileSync(helper, "export const status = 'packed';\n");
    folder.write(
      'orders.mjs',
      ["import { status } from './lib/status.mjs';", ORDER_STATUS.replace("'shipped'", 'status')].join('\n'),
    );
    await tools.load();
    tools.watch();
    const call = () => callTool({ ...tools.tools[0], driver: undefined }, { id: '1' }, context(), 1000);
    expect(await call()).toEqual({ id: '1', status: 'packed' });

    const next = changed();
    writeFileSync(helper, "export const status = 'shipped';\n");
    await next;
    expect(await call()).toEqual({ id: '1', status: 'shipped' });
  });
});
