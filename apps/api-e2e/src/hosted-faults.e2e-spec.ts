import { Client } from 'pg';
import type { ListEnvelope, Message, Query, QueryEvent } from '@assistant/contracts';
import { startOpenAiFixture, type OpenAiFixture } from '@assistant/test-services';
import { ApiClient } from './support/http';
import { LiveStream, startHostedDeployment, type HostedDeployment } from './support/hosted-deployment';
import { CuttableProxy, PrivatePostgres, PrivateRedis } from './support/private-services';

/**
 * The hosted API when what it stands on fails: Redis stopped and started, or cut off and back (a proxy in front of
 * it), PostgreSQL restarted during a run, the model's connection cut mid-answer, an instance killed mid-run. Each
 * on services of the test's own (the machine's shared ones stay up).
 */
describe('the hosted API through faults', () => {
  let fixture: OpenAiFixture;
  let redis: PrivateRedis;
  /** Between the instances and Redis: `cut()` is a network outage that Redis's data survives. */
  let redisLink: CuttableProxy;
  let postgres: PrivatePostgres;
  let deployment: HostedDeployment;
  let api: ApiClient;
  /** The second instance: what it reads of the first one's queries comes from Redis, or else the database. */
  let other: ApiClient;

  beforeAll(async () => {
    [fixture, redis, postgres] = await Promise.all([
      startOpenAiFixture(),
      PrivateRedis.start(),
      PrivatePostgres.start(),
    ]);
    redisLink = await CuttableProxy.start(redis.port);
    deployment = await startHostedDeployment(
      2,
      {
        ASSISTANT_MODEL: 'openai-compatible:fixture-model',
        ASSISTANT_MODEL_BASE_URL: fixture.url,
        ASSISTANT_RATE_LIMIT_QUERIES: '1000',
        // The test's MQTT broker runs on this machine: the home connection whose call waits for a confirmation.
        ASSISTANT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
      },
      { databaseUrl: postgres.url, redisUrl: `redis://127.0.0.1:${redisLink.port}/15` },
    );
    api = new ApiClient(deployment.instances[0].url, deployment.ownerToken);
    other = new ApiClient(deployment.instances[1].url, deployment.ownerToken);
  }, 60_000);
  afterAll(async () => {
    await deployment?.stop();
    await fixture?.close();
    await redisLink?.close();
    await redis?.stop();
    postgres?.stop();
  });
  beforeEach(() => fixture.reset());

  const ask = async (text: string) => {
    const stream = new LiveStream(`${api.baseUrl}/api/v1/queries`, deployment.ownerToken, { body: { text } });
    await stream.done;
    return stream.events;
  };
  const queryIdOf = (events: QueryEvent[]) =>
    (events[0] as Extract<QueryEvent, { type: 'query.created' }>).query_id;
  const refusal = async () => {
    const response = await fetch(`${api.baseUrl}/api/v1/queries`, {
      method: 'POST',
      headers: { authorization: `Bearer ${deployment.ownerToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'are you there?' }),
    });
    const body = response.headers.get('content-type')?.includes('json') ? await response.json() : undefined;
    await response.body?.cancel().catch(() => undefined);
    return { status: response.status, code: (body as { code?: string } | undefined)?.code };
  };

  it('refuses queries with 503 while Redis is down, keeps serving reads, and recovers without a restart', async () => {
    fixture.setDefault({ text: 'Still here.' });
    const before = await ask('hello');
    expect(before.at(-1)).toMatchObject({ type: 'query.completed', text: 'Still here.' });
    const finished = queryIdOf(before);

    await redis.stop();
    try {
      expect(await refusal()).toEqual({ status: 503, code: 'service_unavailable' });
      expect((await api.get('/me')).status).toBe(200);
      expect((await api.get('/discussions')).status).toBe(200);
      expect((await other.get<Query>(`/queries/${finished}`)).body).toMatchObject({ status: 'completed' });
      const readiness = await fetch(`${api.baseUrl}/readyz`);
      expect(readiness.status).toBe(503);
      expect(await readiness.text()).toContain('redis');
    } finally {
      await redis.resume();
    }
    let recovered = await refusal().catch(() => ({ status: 0, code: undefined }));
    const deadline = Date.now() + 15_000;
    while (recovered.status === 503 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      recovered = await refusal();
    }
    expect(recovered.status).toBe(200);
    expect((await fetch(`${api.baseUrl}/readyz`)).status).toBe(200);
    const after = await ask('hello again');
    expect(after.at(-1)).toMatchObject({ type: 'query.completed', text: 'Still here.' });
  });

  it('ends a run cleanly when PostgreSQL restarts during it, and serves the next query without a restart', async () => {
    const pieces = Array.from({ length: 40 }, (_, i) => `w${i} `);
    fixture.script({ text: pieces, intervalMs: 40 });
    const stream = new LiveStream(`${api.baseUrl}/api/v1/queries`, deployment.ownerToken, {
      body: { text: 'tell me a long story' },
    });
    await stream.waitFor((event) => event.sequence_number === 8);
    postgres.restart();
    await stream.done;

    const terminal = stream.events.at(-1)!;
    expect(['query.completed', 'query.failed']).toContain(terminal.type);
    expect(
      stream.events.filter((e) => e.type.startsWith('query.') && e.type !== 'query.created'),
    ).toHaveLength(1);
    const queryId = queryIdOf(stream.events);
    // What the database holds agrees with what the stream said: the status of its terminal event, all of its
    // events, and the whole answer or none.
    await waitForStored(queryId, terminal.sequence_number);
    const db = await databaseClient();
    try {
      const [row] = (await db.query('SELECT status, ended_at FROM queries WHERE id = $1', [queryId])).rows;
      expect(row.status).toBe(terminal.type === 'query.completed' ? 'completed' : 'failed');
      expect(row.ended_at).not.toBeNull();
      const [stored] = (await db.query('SELECT events FROM queries WHERE id = $1', [queryId])).rows;
      const numbers = (stored.events as string)
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as QueryEvent).sequence_number);
      expect(numbers).toEqual(stream.events.map((e) => e.sequence_number));
    } finally {
      await db.end();
    }
    const created = stream.events[0] as Extract<QueryEvent, { type: 'query.created' }>;
    const messages = await api.get<ListEnvelope<Message>>(`/discussions/${created.discussion_id}/messages`);
    const answers = messages.body.data.filter((m) => m.role === 'assistant').map((m) => m.text);
    expect(answers).toEqual(terminal.type === 'query.completed' ? [pieces.join('')] : []);

    fixture.setDefault({ text: 'Back.' });
    expect((await ask('are you back?')).at(-1)).toMatchObject({ type: 'query.completed', text: 'Back.' });
  });

  it('ends with a terminal event, and stores no half answer, when the model drops the connection mid-answer', async () => {
    fixture.script({ drop: true, text: ['half ', 'an '] });
    const events = await ask('tell me something');

    expect(events.at(-1)).toMatchObject({ type: 'query.failed', error: { code: 'model_unavailable' } });
    const created = events[0] as Extract<QueryEvent, { type: 'query.created' }>;
    expect((await api.get<Query>(`/queries/${created.query_id}`)).body).toMatchObject({ status: 'failed' });
    const messages = await api.get<ListEnvelope<Message>>(`/discussions/${created.discussion_id}/messages`);
    expect(messages.body.data.map((m) => m.role)).toEqual(['user']);
  });

  /** A call that must be confirmed: switching a device through the test's MQTT broker. */
  let homeConnected = false;
  const connectHome = async () => {
    if (homeConnected) return;
    const created = await api.post('/connections', {
      family: 'home',
      provider: 'mqtt',
      name: 'Home broker',
      settings: {
        url: process.env.ASSISTANT_TEST_MQTT_URL ?? 'mqtt://127.0.0.1:1883',
        discovery_prefix: `assistant-faults-${Date.now()}`,
      },
    });
    expect(created.status).toBe(201);
    homeConnected = true;
  };
  const switchTheLamp = () =>
    fixture.script(
      { toolCalls: [{ name: 'home_set_state', arguments: { device: 'lamp', state: 'on' } }] },
      { text: Array.from({ length: 30 }, (_, i) => `w${i} `), intervalMs: 30 },
    );

  /** Polls until `done` holds for what `read` returns, or `timeoutMs` passes; returns the last value read. */
  async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number) {
    const deadline = Date.now() + timeoutMs;
    let value = await read();
    while (!done(value) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      value = await read();
    }
    return value;
  }

  /** The whole stream of a query again from `client`'s instance; fails if it does not end within `timeoutMs`. */
  async function replay(client: ApiClient, queryId: string, timeoutMs = 10_000): Promise<QueryEvent[]> {
    const stream = new LiveStream(
      `${client.baseUrl}/api/v1/queries/${queryId}/events`,
      deployment.ownerToken,
    );
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), timeoutMs)));
    const outcome = await Promise.race([stream.done.then(() => 'ended' as const), hung]);
    clearTimeout(timer);
    if (outcome === 'hung') {
      stream.close();
      throw new Error(
        `the replay on ${client.baseUrl} hung after ${stream.events.map((e) => e.type).join(', ')}`,
      );
    }
    return stream.events;
  }

  it('after kill -9 of the instance running a query that awaits a confirmation, every instance reads it ended and replays it to its end, the pending call refused first', async () => {
    await connectHome();
    switchTheLamp();
    const runner = await deployment.startInstance();
    const stream = new LiveStream(`${runner.url}/api/v1/queries`, deployment.ownerToken, {
      body: { text: 'turn on the lamp' },
    });
    const waiting = await stream.waitFor((event) => event.type === 'tool_call.awaiting_confirmation');
    if (waiting.type !== 'tool_call.awaiting_confirmation') throw new Error('unreachable');
    const queryId = queryIdOf(stream.events);
    expect((await other.get<Query>(`/queries/${queryId}`)).body.status).toBe('awaiting_confirmation');
    // Past the write-behind to the database.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const exited = new Promise((resolve) => runner.child.once('close', resolve));
    runner.child.kill('SIGKILL');
    await exited;
    await stream.done.catch(() => undefined);

    for (const client of [api, other]) {
      const status = await eventually(
        async () => (await client.get<Query>(`/queries/${queryId}`)).body,
        (query) => query.status === 'incomplete',
        45_000,
      );
      expect(status).toMatchObject({ status: 'incomplete', ended_at: expect.any(String) });
      const events = await replay(client, queryId);
      expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i + 1));
      expect(events.slice(0, stream.events.length)).toEqual(stream.events);
      // As a cancel says it: the call that waited is refused before the query ends.
      expect(events.slice(-2)).toEqual([
        expect.objectContaining({
          type: 'tool_call.completed',
          call_id: waiting.call_id,
          tool: 'home_set_state',
          status: 'denied',
        }),
        expect.objectContaining({ type: 'query.incomplete', reason: 'interrupted' }),
      ]);
      expect(status.last_event_id).toBe(events.at(-1)?.sequence_number);
    }
    // A late answer to the call finds it over.
    const late = await other.post(`/queries/${queryId}/confirmations/${waiting.call_id}`, { approve: true });
    expect(late.status).toBe(409);
  }, 90_000);

  it('after Redis is cut off mid-answer and back, every instance reads the query as its runner ended it, the call approved meanwhile included', async () => {
    await connectHome();
    switchTheLamp();
    const stream = new LiveStream(`${api.baseUrl}/api/v1/queries`, deployment.ownerToken, {
      body: { text: 'turn on the lamp' },
    });
    const waiting = await stream.waitFor((event) => event.type === 'tool_call.awaiting_confirmation');
    if (waiting.type !== 'tool_call.awaiting_confirmation') throw new Error('unreachable');
    const queryId = queryIdOf(stream.events);
    expect(
      (
        await eventually(
          () => other.get<Query>(`/queries/${queryId}`),
          (r) => r.body.status === 'awaiting_confirmation',
          5_000,
        )
      ).body.status,
    ).toBe('awaiting_confirmation');

    redisLink.cut();
    try {
      // Answered on the instance that runs the query: no other instance needs to hear it.
      expect(
        (await api.post(`/queries/${queryId}/confirmations/${waiting.call_id}`, { approve: true })).status,
      ).toBe(200);
      await stream.waitFor((event) => event.type === 'output_text.delta' && event.delta === 'w5 ');
    } finally {
      redisLink.restore();
    }
    await stream.done;
    const terminal = stream.events.at(-1)!;
    expect(terminal).toMatchObject({ type: 'query.completed' });
    expect(stream.events).toContainEqual(
      expect.objectContaining({ type: 'tool_call.completed', call_id: waiting.call_id }),
    );

    for (const client of [other, api]) {
      const status = await eventually(
        async () => (await client.get<Query>(`/queries/${queryId}`)).body,
        (query) => query.status === 'completed',
        10_000,
      );
      expect(status).toMatchObject({ status: 'completed', last_event_id: terminal.sequence_number });
      expect(await replay(client, queryId)).toEqual(stream.events);
    }
  });

  function databaseClient(): Promise<Client> {
    const client = new Client({ connectionString: deployment.env.ASSISTANT_DATABASE_URL.split('?')[0] });
    const schema = new URL(deployment.env.ASSISTANT_DATABASE_URL).searchParams.get('schema');
    return client.connect().then(async () => {
      await client.query(`SET search_path TO "${schema}"`);
      return client;
    });
  }

  /** The write-behind reaches the database a short while after the stream: wait for the terminal event there. */
  async function waitForStored(queryId: string, lastEventId: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const db = await databaseClient().catch(() => undefined);
      const stored = db
        ? await db
            .query('SELECT last_event_id AS last FROM queries WHERE id = $1', [queryId])
            .then((r) => Number(r.rows[0].last))
            .finally(() => db.end())
        : 0;
      if (stored >= lastEventId || Date.now() > deadline) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
});
