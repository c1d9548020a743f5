import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ListEnvelope, Message, Query } from '@assistant/contracts';
import { ApiClient } from './support/http';
import { BUILT, startServer, type ServerProcess } from './support/processes';
import { readStream, sequence, types } from './support/sse';
import { dropSchema, freshSchemaUrl } from './support/targets';

/**
 * A crash in the middle of a query (SPEC §4): the self-hosted server (`assistant serve`, built) is killed with
 * SIGKILL while the built-in model answers one word a second, then started again on the same data. The query is
 * known, ended `incomplete`, and its events replay up to `query.incomplete` with reason `interrupted`.
 */
describe.each(['sqlite', 'postgres'] as const)('a query cut short by a crash, on %s', (database) => {
  let dataDir: string;
  let schema: string | undefined;
  let server: ServerProcess | undefined;
  /** The database flags: the same PostgreSQL schema for every start of the suite's server. */
  let databaseArgs: string[] | undefined;
  const args = () => {
    if (!databaseArgs) {
      databaseArgs = [];
      if (database === 'postgres') {
        const pg = freshSchemaUrl();
        schema = pg.schema;
        databaseArgs = ['--database-url', pg.url];
      }
    }
    return databaseArgs;
  };
  const killServer = async () => {
    const exited = new Promise((resolve) => server?.child.once('close', resolve));
    server?.child.kill('SIGKILL');
    await exited;
  };

  const serve = (args: string[]) =>
    startServer(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', '0', ...args], {
      ASSISTANT_BUILTIN_PACING_MS: '1000',
    });

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'assistant-e2e-crash-'));
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    if (schema) await dropSchema(schema);
  });

  it('is known after the restart, ended incomplete, and replays its start and query.incomplete (interrupted)', async () => {
    server = await serve(args());
    const token = (JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as { token: string })
      .token;

    const before = await readStream(`${server.url}/api/v1/queries`, {
      token,
      body: { text: 'what can you do?' },
      stopAfter: 3,
    });
    expect(types(before)).toEqual(['query.created', 'output_text.delta', 'output_text.delta']);
    const created = before.events[0].event;
    if (created.type !== 'query.created') throw new Error('first event is not query.created');
    // Past the write-behind delay, and still before the end of the answer: its text is written with its end
    // (a constant number of row writes per answer), so a crash loses the text streamed so far.
    await new Promise((resolve) => setTimeout(resolve, 600));
    await killServer();

    server = await serve(args());
    const api = new ApiClient(server.url, token);
    const status = await api.get<Query>(`/queries/${created.query_id}`);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      id: created.query_id,
      status: 'incomplete',
      ended_at: expect.any(String),
    });

    const replay = await readStream(`${server.url}/api/v1/queries/${created.query_id}/events?after=0`, {
      token,
    });
    expect(replay.status).toBe(200);
    expect(replay.events.map((e) => e.event)).toEqual([
      created,
      { type: 'query.incomplete', reason: 'interrupted', sequence_number: 2 },
    ]);
    expect(status.body.last_event_id).toBe(2);

    const resumed = await readStream(`${server.url}/api/v1/queries/${created.query_id}/events`, {
      token,
      headers: { 'last-event-id': '1' },
    });
    expect(sequence(resumed)).toEqual([2]);
    expect(types(resumed)).toEqual(['query.incomplete']);
    // A client that read more than was kept is told so, and reads the query's status instead.
    const beyond = await readStream(`${server.url}/api/v1/queries/${created.query_id}/events`, {
      token,
      headers: { 'last-event-id': '3' },
    });
    expect(beyond.status).toBe(422);

    // The question stays in its discussion, without a half answer.
    const messages = await api.get<ListEnvelope<Message>>(`/discussions/${created.discussion_id}/messages`);
    expect(messages.body.data.map((m) => [m.role, m.query_id])).toEqual([['user', created.query_id]]);
  });
  it('completes the call that waited for a confirmation with tool_call.completed (denied) before query.incomplete', async () => {
    await server?.stop();
    server = await serve(args());
    const token = (JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as { token: string })
      .token;
    const connected = await new ApiClient(server.url, token).post('/connections', {
      family: 'home',
      provider: 'mqtt',
      name: 'Home broker',
      settings: {
        url: process.env.ASSISTANT_TEST_MQTT_URL ?? 'mqtt://127.0.0.1:1883',
        discovery_prefix: `assistant-recovery-${database}-${Date.now()}`,
      },
    });
    expect(connected.status).toBe(201);
    const before = await readStream(`${server.url}/api/v1/queries`, {
      token,
      body: { text: 'turn on the hallway light' },
      stopAfter: 3,
    });
    expect(types(before)).toEqual(['query.created', 'tool_call.started', 'tool_call.awaiting_confirmation']);
    const created = before.events[0].event;
    const waiting = before.events[2].event;
    if (created.type !== 'query.created' || waiting.type !== 'tool_call.awaiting_confirmation')
      throw new Error('not the stream of a call that waits');
    // Past the write-behind delay.
    await new Promise((resolve) => setTimeout(resolve, 600));
    await killServer();

    server = await serve(args());
    const replay = await readStream(`${server.url}/api/v1/queries/${created.query_id}/events`, { token });
    expect(sequence(replay)).toEqual(replay.events.map((_, i) => i + 1));
    expect(replay.events.slice(3).map((e) => e.event)).toEqual([
      {
        type: 'tool_call.completed',
        call_id: waiting.call_id,
        tool: 'home_set_state',
        status: 'denied',
        error: expect.any(String),
        sequence_number: 4,
      },
      { type: 'query.incomplete', reason: 'interrupted', sequence_number: 5 },
    ]);
  });
});
