import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { RATE_LIMIT_HEADERS, type CreatedToken, type QueryEvent } from '@assistant/contracts';
import { startOpenAiFixture, type OpenAiFixture } from '@assistant/test-services';
import { ApiClient } from './support/http';
import { LiveStream, startHostedDeployment, type HostedDeployment } from './support/hosted-deployment';

/**
 * Two hosted API processes behind one imagined load balancer, sharing PostgreSQL and Redis, as the ops team runs
 * them: whichever instance a request lands on, the account sees one service.
 */
describe('two hosted instances on one PostgreSQL and one Redis', () => {
  const CORE_LIMIT = 40;
  let fixture: OpenAiFixture;
  let deployment: HostedDeployment;
  let a: ApiClient;
  let b: ApiClient;

  beforeAll(async () => {
    fixture = await startOpenAiFixture();
    deployment = await startHostedDeployment(2, {
      ASSISTANT_MODEL: 'openai-compatible:fixture-model',
      ASSISTANT_MODEL_BASE_URL: fixture.url,
      ASSISTANT_RATE_LIMIT_CORE: String(CORE_LIMIT),
      // The test's mail server runs on this machine.
      ASSISTANT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    });
    const [first, second] = deployment.instances;
    a = new ApiClient(first.url, deployment.ownerToken);
    b = new ApiClient(second.url, deployment.ownerToken);
  });
  afterAll(async () => {
    await deployment?.stop();
    await fixture?.close();
  });
  beforeEach(() => fixture.reset());

  /** The test's mail server (Dovecot, OpenSMTPD) as an email connection. */
  const mailbox = (name: string) => ({
    family: 'email',
    provider: 'imap',
    name,
    settings: {
      imap_host: '127.0.0.1',
      imap_port: 10143,
      imap_tls: false,
      smtp_host: '127.0.0.1',
      smtp_port: 10025,
      smtp_tls: false,
      username: 'alice',
      from_address: 'alice@example.test',
    },
    secrets: { password: 'secret' },
  });

  const remaining = (response: { headers: Headers }) =>
    Number(response.headers.get(RATE_LIMIT_HEADERS.remaining));

  it('counts one rate limit across both instances', async () => {
    const other = (api: ApiClient) => api.withToken(deployment.otherToken);
    for (let i = 1; i <= CORE_LIMIT; i++) {
      const response = await other(i % 2 ? a : b).get('/me');
      expect(response.status).toBe(200);
      expect(remaining(response)).toBe(CORE_LIMIT - i);
    }

    expect((await other(a).get('/me')).status).toBe(429);
    expect((await other(b).get('/me')).status).toBe(429);
  });

  it('resumes on one instance a query that runs on the other, with exactly the missing events', async () => {
    fixture.script({ text: Array.from({ length: 30 }, (_, i) => `w${i} `), intervalMs: 40 });
    const onA = new LiveStream(`${a.baseUrl}/api/v1/queries`, deployment.ownerToken, {
      body: { text: 'tell me a long story' },
    });
    await onA.waitFor((event) => event.sequence_number === 5);
    onA.close();
    const seen = onA.events.slice(0, 5);
    const created = seen[0];
    if (created.type !== 'query.created') throw new Error('the first event is not query.created');

    const onB = new LiveStream(
      `${b.baseUrl}/api/v1/queries/${created.query_id}/events`,
      deployment.ownerToken,
      {
        headers: { 'last-event-id': '5' },
      },
    );
    await onB.done;

    const resumed = onB.events;
    expect(resumed[0].sequence_number).toBe(6);
    expect([...seen, ...resumed].map((e) => e.sequence_number)).toEqual(
      Array.from({ length: 5 + resumed.length }, (_, i) => i + 1),
    );
    expect(resumed.at(-1)).toMatchObject({ type: 'query.completed' });
    const text = (events: QueryEvent[]) =>
      events.map((e) => (e.type === 'output_text.delta' ? e.delta : '')).join('');
    expect(text([...seen, ...resumed])).toBe(Array.from({ length: 30 }, (_, i) => `w${i} `).join(''));
    // The whole stream again, from either instance, is the same stream.
    const replayOnA = new LiveStream(
      `${a.baseUrl}/api/v1/queries/${created.query_id}/events`,
      deployment.ownerToken,
    );
    await replayOnA.done;
    expect(replayOnA.events).toEqual([...seen, ...resumed]);
  });

  it('refuses a token on one instance at once after it was revoked on the other', async () => {
    const created = await a.post<CreatedToken>('/tokens', { name: 'bot', scopes: ['read:account'] });
    expect(created.status).toBe(201);
    const token = created.body.token;
    // Verified (and remembered) on B.
    expect((await b.withToken(token).get('/me')).status).toBe(200);
    expect((await b.withToken(token).get('/me')).status).toBe(200);

    expect((await a.delete(`/tokens/${created.body.id}`)).status).toBe(204);

    expect((await b.withToken(token).get('/me')).status).toBe(401);
  });

  it('brings a confirmation answered on one instance to the run on the other', async () => {
    const connection = await a.post('/connections', mailbox('Alice at example.test'));
    expect(connection.status).toBe(201);
    fixture.script(
      {
        toolCalls: [
          {
            name: 'email_send',
            arguments: { to: ['bob@example.test'], subject: 'Lunch', body: 'At noon?' },
          },
        ],
      },
      { text: 'I did not send it.' },
    );
    const onA = new LiveStream(`${a.baseUrl}/api/v1/queries`, deployment.ownerToken, {
      body: { text: 'ask bob about lunch' },
    });
    const waiting = await onA.waitFor((event) => event.type === 'tool_call.awaiting_confirmation');
    if (waiting.type !== 'tool_call.awaiting_confirmation') throw new Error('unreachable');
    const queryId = (onA.events[0] as Extract<QueryEvent, { type: 'query.created' }>).query_id;

    const answered = await b.post(`/queries/${queryId}/confirmations/${waiting.call_id}`, { approve: false });
    expect(answered.status).toBe(200);
    await onA.done;

    expect(onA.events).toContainEqual(
      expect.objectContaining({ type: 'tool_call.completed', call_id: waiting.call_id, status: 'denied' }),
    );
    expect(onA.events.at(-1)).toMatchObject({ type: 'query.completed', text: 'I did not send it.' });
    // Answered once, wherever the second answer lands.
    expect(
      (await a.post(`/queries/${queryId}/confirmations/${waiting.call_id}`, { approve: true })).status,
    ).toBe(409);
    expect(
      (await b.post(`/queries/${queryId}/confirmations/${waiting.call_id}`, { approve: true })).status,
    ).toBe(409);
  });

  it('keeps a query to the token that started it: another token of the account gets 404 for its status, events and confirmations on either instance', async () => {
    const home = await a.post('/connections', {
      family: 'home',
      provider: 'mqtt',
      name: 'Home broker',
      settings: {
        url: process.env.ASSISTANT_TEST_MQTT_URL ?? 'mqtt://127.0.0.1:1883',
        discovery_prefix: `assistant-instances-${Date.now()}`,
      },
    });
    expect(home.status).toBe(201);
    const token = async (name: string, scopes: string[]) =>
      (await a.post<CreatedToken>('/tokens', { name, scopes })).body.token;
    const starter = await token('phone', ['write:queries', 'read:home', 'write:home']);
    const narrow = await token('notes app', ['write:queries']);
    fixture.script(
      { toolCalls: [{ name: 'home_set_state', arguments: { device: 'lamp', state: 'on' } }] },
      { text: 'I left it as it is.' },
    );
    const onA = new LiveStream(`${a.baseUrl}/api/v1/queries`, starter, {
      body: { text: 'turn on the lamp' },
    });
    const waiting = await onA.waitFor((event) => event.type === 'tool_call.awaiting_confirmation');
    if (waiting.type !== 'tool_call.awaiting_confirmation') throw new Error('unreachable');
    const queryId = (onA.events[0] as Extract<QueryEvent, { type: 'query.created' }>).query_id;
    const approval = `/queries/${queryId}/confirmations/${waiting.call_id}`;

    for (const instance of [a, b]) {
      const other = instance.withToken(narrow);
      expect((await other.get(`/queries/${queryId}`)).status).toBe(404);
      const events = await fetch(`${instance.baseUrl}/api/v1/queries/${queryId}/events`, {
        headers: { authorization: `Bearer ${narrow}` },
      });
      await events.body?.cancel();
      expect(events.status).toBe(404);
      expect((await other.post(approval, { approve: true })).status).toBe(404);
    }

    // The token that started it follows and answers it from the other instance.
    expect((await b.withToken(starter).get(`/queries/${queryId}`)).status).toBe(200);
    expect((await b.withToken(starter).post(approval, { approve: false })).status).toBe(200);
    await onA.done;
    expect(onA.events).toContainEqual(
      expect.objectContaining({ type: 'tool_call.completed', call_id: waiting.call_id, status: 'denied' }),
    );
  });

  it('tells an MCP client on one instance that the tools changed when a connection is added on the other', async () => {
    let changed: () => void = () => undefined;
    const listChanged = new Promise<void>((resolve) => (changed = resolve));
    const client = new Client({ name: 'hosted-instances-e2e', version: '0.0.0' });
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => changed());
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${b.baseUrl}/api/v1/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${deployment.ownerToken}` } },
      }),
    );
    try {
      await client.listTools();
      expect((await a.post('/connections', mailbox('Second mailbox'))).status).toBe(201);

      const late = new Promise((_, reject) =>
        setTimeout(() => reject(new Error('no list_changed within 5 s')), 5_000).unref(),
      );
      await Promise.race([listChanged, late]);
    } finally {
      await client.close();
    }
  });
});
