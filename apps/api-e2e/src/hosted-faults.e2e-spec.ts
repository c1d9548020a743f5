import { Client } from 'pg';
import type { ListEnvelope, Message, Query, QueryEvent } from '@assistant/contracts';
import { startOpenAiFixture, type OpenAiFixture } from '@assistant/test-services';
import { ApiClient } from './support/http';
import { LiveStream, startHostedDeployment, type HostedDeployment } from './support/hosted-deployment';
import { PrivatePostgres, PrivateRedis } from './support/private-services';

/**
 * The hosted API when what it stands on fails: Redis stopped and started, PostgreSQL restarted during a run, the
 * model's connection cut mid-answer. Each on services of the test's own (the machine's shared ones stay up).
 */
describe('the hosted API through faults', () => {
  let fixture: OpenAiFixture;
  let redis: PrivateRedis;
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
    deployment = await startHostedDeployment(
      2,
      {
        ASSISTANT_MODEL: 'openai-compatible:fixture-model',
        ASSISTANT_MODEL_BASE_URL: fixture.url,
        ASSISTANT_RATE_LIMIT_QUERIES: '1000',
      },
      { databaseUrl: postgres.url, redisUrl: redis.url },
    );
    api = new ApiClient(deployment.instances[0].url, deployment.ownerToken);
    other = new ApiClient(deployment.instances[1].url, deployment.ownerToken);
  }, 60_000);
  afterAll(async () => {
    await deployment?.stop();
    await fixture?.close();
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
      const numbers = (
        await db.query('SELECT sequence_number FROM query_events WHERE query_id = $1 ORDER BY 1', [queryId])
      ).rows.map((r) => r.sequence_number as number);
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
            .query('SELECT max(sequence_number) AS last FROM query_events WHERE query_id = $1', [queryId])
            .then((r) => Number(r.rows[0].last))
            .finally(() => db.end())
        : 0;
      if (stored >= lastEventId || Date.now() > deadline) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
});
