import { toolListSchema, type QueryEvent } from '@assistant/contracts';
import { createAccount } from '../../accounts/create-account';
import { importWithNode, makeToolsFolder, toolModule, type ToolsFolder } from '../../../testing/custom-tools';
import { startInProcessApp, type InProcessApp } from '../../../testing/in-process-app';

/**
 * A self-hosted server with a custom tools folder: the tools join the catalogue of every account, queries call
 * them (the built-in model by "run <tool> with …"), and a handler that throws or hangs fails its call only.
 */
let folder: ToolsFolder;
let api: InProcessApp;

beforeAll(async () => {
  folder = makeToolsFolder();
  folder.write(
    'orders.mjs',
    toolModule(
      "name: 'custom_order_status', description: 'Where an order is', input: z.object({ id: z.string().describe('the order number') })",
      "return { id: input.id, status: 'shipped' };",
    ),
  );
  folder.write(
    'refund.mjs',
    toolModule(
      "name: 'custom_refund', description: 'Refunds an order', side_effects: true, input: z.object({ id: z.string() })",
      'return { refunded: input.id };',
    ),
  );
  folder.write(
    'fails.mjs',
    toolModule(
      "name: 'custom_fails', description: 'Always fails', input: z.object({ id: z.string() })",
      'throw new Error(`order ${input.id} is not in the shop`);',
    ),
  );
  folder.write(
    'hangs.mjs',
    toolModule(
      "name: 'custom_hangs', description: 'Never answers', input: z.object({})",
      'await new Promise(() => undefined);',
    ),
  );
  folder.write(
    'mailer.mjs',
    toolModule(
      "name: 'custom_mail_out', description: 'Mails a note', side_effects: true, scope: 'write:emails', input: z.object({ to: z.string() })",
      'return { sent: input.to };',
    ),
  );
  // Changes something yet claims a read scope: refused at load, so that no read-only token ever runs it.
  folder.write(
    'sneaky.mjs',
    toolModule(
      "name: 'custom_sneaky', description: 'Deletes the orders', side_effects: true, scope: 'read:tools', input: z.object({})",
      "return 'deleted';",
    ),
  );
  folder.write(
    'loops.mjs',
    toolModule(
      "name: 'custom_loops', description: 'Answers with itself', input: z.object({})",
      'const order = { id: 1 }; order.self = order; return order;',
    ),
  );
  folder.write(
    'counts.mjs',
    toolModule(
      "name: 'custom_counts', description: 'Counts in BigInt', input: z.object({})",
      'return { total: 10n ** 30n };',
    ),
  );
  folder.write('broken.mjs', 'export default defineTool({ name: "custom_broken",, });\n');
  api = await startInProcessApp({
    config: { customToolsDir: folder.path },
    customToolImporter: importWithNode,
    env: { ASSISTANT_TOOL_TIMEOUT_SECONDS: '1', ASSISTANT_CONFIRMATION_TIMEOUT_SECONDS: '1' },
  });
});
afterAll(async () => {
  await api?.close();
  folder?.close();
});

/** One query through POST /queries, its whole event stream once it ended. */
async function ask(text: string, token?: string): Promise<QueryEvent[]> {
  const res = await api.inject({ method: 'POST', url: '/api/v1/queries', payload: { text }, token });
  expect(res.statusCode).toBe(200);
  return res.body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as QueryEvent);
}

const answer = (events: QueryEvent[]) => events.at(-1);
const completedCall = (events: QueryEvent[]) => events.find((e) => e.type === 'tool_call.completed');

describe('custom tools on a self-hosted server', () => {
  it('lists the tools that loaded in every account’s catalogue, and skips a bad module with one log line', async () => {
    const other = await createAccount(api.storage, { email: 'other@example.test', scopes: ['read:tools'] });
    for (const token of [api.token, other.token]) {
      const res = await api.inject({ method: 'GET', url: '/api/v1/tools', token });
      const custom = toolListSchema.parse(res.json()).data.filter((tool) => tool.family === 'custom');
      expect(custom.map((tool) => [tool.name, tool.scope, tool.side_effects, tool.active])).toEqual([
        ['custom_counts', 'read:tools', false, true],
        ['custom_fails', 'read:tools', false, true],
        ['custom_hangs', 'read:tools', false, true],
        ['custom_loops', 'read:tools', false, true],
        ['custom_mail_out', 'write:emails', true, true],
        ['custom_order_status', 'read:tools', false, true],
        ['custom_refund', 'write:tools', true, true],
      ]);
      // (The field's description is there too, but not here: Node's loader, which these tests use, gives the
      // module a zod of another realm than jest's, with a registry of descriptions of its own. The e2e test has it.)
      expect(custom.find((tool) => tool.name === 'custom_order_status')?.input_schema).toMatchObject({
        type: 'object',
        properties: { id: { type: 'string' } },
        required: ['id'],
      });
    }
    const skipped = api.logs().filter((line) => line.context === 'CustomTools');
    expect(skipped).toEqual([
      expect.objectContaining({
        level: 40,
        file: `${folder.path}/broken.mjs`,
        msg: expect.stringMatching(/^custom tool module .*broken\.mjs skipped: syntax error: /),
      }),
      expect.objectContaining({
        level: 40,
        file: `${folder.path}/sneaky.mjs`,
        msg: `custom tool module ${folder.path}/sneaky.mjs skipped: it threw while loading: custom_sneaky: a tool with side effects needs a write: scope (write:tools when none is given), not read:tools`,
      }),
    ]);
  });

  it('runs one when the built-in model is asked "run <tool> with …", and answers with its output', async () => {
    const events = await ask('run custom_order_status with id=A-17');
    expect(completedCall(events)).toMatchObject({
      tool: 'custom_order_status',
      status: 'ok',
      output: { id: 'A-17', status: 'shipped' },
    });
    expect(answer(events)).toMatchObject({
      type: 'query.completed',
      text: 'custom_order_status answered with id A-17 and status shipped.',
    });
  });

  it('fails only the call of a handler that throws, with its message', async () => {
    const events = await ask('run custom_fails with {"id": "A-1"}');
    expect(completedCall(events)).toMatchObject({
      tool: 'custom_fails',
      status: 'error',
      error: 'order A-1 is not in the shop',
    });
    expect(answer(events)).toMatchObject({
      type: 'query.completed',
      text: "I couldn't do that: order A-1 is not in the shop.",
    });
  });

  it('fails only the call of a handler whose output cannot be sent as JSON (a cycle, a BigInt)', async () => {
    for (const [tool, why] of [
      ['custom_loops', 'it refers to itself'],
      ['custom_counts', 'it holds a BigInt'],
    ]) {
      const events = await ask(`run ${tool}`);
      const error = `${tool} gave an output that cannot be sent as JSON: ${why}`;
      expect(completedCall(events)).toMatchObject({ tool, status: 'error', error });
      expect(answer(events)).toMatchObject({
        type: 'query.completed',
        text: `I couldn't do that: ${error}.`,
      });
    }
  });

  it('reads any text after "with" without failing the query: a backslash JSON knows no escape for is kept', async () => {
    const events = await ask('run custom_order_status with id="a\\x"');
    expect(completedCall(events)).toMatchObject({ status: 'ok', output: { id: 'a\\x', status: 'shipped' } });
    expect(answer(events)).toMatchObject({
      type: 'query.completed',
      text: 'custom_order_status answered with id a\\x and status shipped.',
    });
  });

  it('cuts off a handler that hangs at the tool timeout, failing only its call', async () => {
    const started = Date.now();
    const events = await ask('run custom_hangs');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(completedCall(events)).toMatchObject({
      tool: 'custom_hangs',
      status: 'error',
      error: 'custom_hangs took longer than 1 s',
    });
    expect(answer(events)).toMatchObject({ type: 'query.completed' });
    // The server goes on: the next call works.
    expect(completedCall(await ask('run order_status with id=7'))).toMatchObject({ status: 'ok' });
  });

  it('waits for the user’s confirmation before a tool with side effects', async () => {
    const events = await ask('run custom_refund with id=A-17');
    expect(events.find((e) => e.type === 'tool_call.awaiting_confirmation')).toMatchObject({
      tool: 'custom_refund',
      arguments: { id: 'A-17' },
    });
    expect(answer(events)).toMatchObject({ type: 'query.incomplete', reason: 'confirmation_timeout' });
  });

  it('waits for the user’s confirmation before a tool with side effects whatever write: scope it names', async () => {
    const events = await ask('run custom_mail_out with to=sam');
    expect(events.find((e) => e.type === 'tool_call.awaiting_confirmation')).toMatchObject({
      tool: 'custom_mail_out',
      arguments: { to: 'sam' },
    });
    expect(events.some((e) => e.type === 'tool_call.completed' && e.status === 'ok')).toBe(false);
    expect(answer(events)).toMatchObject({ type: 'query.incomplete', reason: 'confirmation_timeout' });
  });

  it('never lets a read-only token run a tool with side effects that claimed a read scope: it did not load', async () => {
    const token = await api.issueToken(['write:queries', 'read:tools']);
    const events = await ask('run custom_sneaky', token);
    expect(events.some((e) => e.type === 'tool_call.started')).toBe(false);
    expect(answer(events)).toMatchObject({
      text: expect.stringMatching(/^There is no custom tool custom_sneaky here\./),
    });
  });

  it('needs the scope of the tool, and names the custom tools there are when asked for another', async () => {
    const token = await api.issueToken(['write:queries', 'read:memories']);
    expect(answer(await ask('run custom_order_status with id=1', token))).toMatchObject({
      text: "I can't use custom_order_status in this query: the token needs the read:tools scope.",
    });
    expect(answer(await ask('run custom_nope'))).toMatchObject({
      text: 'There is no custom tool custom_nope here. The custom tools here are custom_counts, custom_fails, custom_hangs, custom_loops, custom_mail_out, custom_order_status and custom_refund.',
    });
  });
});

describe('a server without a custom tools folder (the hosted API)', () => {
  it('has no custom family: the phrasing is not even understood', async () => {
    const hosted = await startInProcessApp({ config: { customToolsDir: undefined } });
    try {
      const res = await hosted.inject({ method: 'GET', url: '/api/v1/tools' });
      expect(toolListSchema.parse(res.json()).data.some((tool) => tool.family === 'custom')).toBe(false);
      const query = await hosted.inject({
        method: 'POST',
        url: '/api/v1/queries',
        payload: { text: 'run custom_order_status with id=1' },
      });
      expect(query.body).toContain("Sorry, I didn't understand that.");
    } finally {
      await hosted.close();
    }
  });
});
