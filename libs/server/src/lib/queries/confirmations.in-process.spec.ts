import { z } from 'zod';
import { randomBytes } from 'node:crypto';
import { ALL_SCOPES, type Query, type QueryEvent, type Scope } from '@assistant/contracts';
import { defineFamily, defineTool, type ToolFamily } from '@assistant/tool-kit';
import { createAccount } from '../accounts/create-account';
import { PublicAddress } from '@assistant/server-kit';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';

/** A lamp the built-in model can switch ("turn on the lamp"): a side effect, so it must be confirmed. */
const switched: string[] = [];
const lampFamily = defineFamily({
  name: 'home',
  description: 'devices',
  topic: { about: 'your devices', keywords: [] },
  providers: [],
  tools: [
    defineTool()({
      name: 'home_set_state',
      description: 'switch a device',
      input: z.object({ device: z.string(), state: z.enum(['on', 'off']) }),
      scope: 'write:home',
      side_effects: true,
      handler: async ({ device, state }) => {
        switched.push(`${device} ${state}`);
        return { device, state };
      },
    }),
  ],
  phrases: [
    {
      intent: 'home.set',
      examples: ['turn on the lamp'],
      patterns: [/^turn (on|off) the (.+)$/i],
      act: (m) => ({ kind: 'tool', tool: 'home_set_state', input: { device: m[2], state: m[1] } }),
    },
  ],
  answer: (_tool, output) => {
    const { device, state } = output as { device: string; state: string };
    return `The ${device} is now ${state}.`;
  },
});

let api: InProcessApp;
let url: string;
beforeAll(async () => {
  api = await startInProcessApp({
    families: [lampFamily as ToolFamily],
    env: { ASSISTANT_CONFIRMATION_TIMEOUT_SECONDS: '2' },
  });
  url = await api.listen();
});
afterAll(() => api?.close());
beforeEach(() => (switched.length = 0));

const call = (method: string, path: string, body?: unknown, token = api.token) =>
  fetch(`${url}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** A query's stream, read as it comes: `until` resolves at the first event of a type; `rest` at the end. */
async function ask(text: string, token = api.token) {
  const response = await call('POST', '/queries', { text }, token);
  expect(response.status).toBe(200);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const events: QueryEvent[] = [];
  let buffer = '';
  const next = async (): Promise<boolean> => {
    const { done, value } = await reader.read();
    if (done) return false;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame.split('\n').find((line) => line.startsWith('data: '));
      if (data) events.push(JSON.parse(data.slice(6)) as QueryEvent);
    }
    return true;
  };
  return {
    events,
    async until(type: string) {
      while (!events.some((e) => e.type === type)) if (!(await next())) break;
      return events.find((e) => e.type === type) as QueryEvent & { call_id: string };
    },
    async rest() {
      while (await next());
      return events;
    },
  };
}

describe('confirming a side-effecting call', () => {
  it('waits, shows the query as awaiting_confirmation, and acts once approved', async () => {
    const stream = await ask('turn on the lamp');
    const waiting = await stream.until('tool_call.awaiting_confirmation');
    expect(waiting).toMatchObject({ tool: 'home_set_state', arguments: { device: 'lamp', state: 'on' } });
    const queryId = (stream.events[0] as unknown as { query_id: string }).query_id;
    const status = (await (await call('GET', `/queries/${queryId}`)).json()) as Query;
    expect(status.status).toBe('awaiting_confirmation');
    expect(switched).toEqual([]);

    const approved = await call('POST', `/queries/${queryId}/confirmations/${waiting.call_id}`, {
      approve: true,
    });
    expect(approved.status).toBe(200);
    const events = await stream.rest();
    expect(switched).toEqual(['lamp on']);
    expect(events.at(-1)).toMatchObject({ type: 'query.completed', text: 'The lamp is now on.' });

    // Answering twice is a conflict; an id no call has is not found.
    const again = await call('POST', `/queries/${queryId}/confirmations/${waiting.call_id}`, {
      approve: false,
    });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { code: string }).code).toBe('conflict');
    expect(
      (await call('POST', `/queries/${queryId}/confirmations/call_nope`, { approve: true })).status,
    ).toBe(404);
  });

  it('never acts when refused', async () => {
    const stream = await ask('turn off the lamp');
    const waiting = await stream.until('tool_call.awaiting_confirmation');
    const queryId = (stream.events[0] as unknown as { query_id: string }).query_id;
    await call('POST', `/queries/${queryId}/confirmations/${waiting.call_id}`, { approve: false });
    const events = await stream.rest();
    expect(switched).toEqual([]);
    expect(events.find((e) => e.type === 'tool_call.completed')).toMatchObject({ status: 'denied' });
    expect(events.at(-1)).toMatchObject({ type: 'query.completed' });
  });

  it('cannot be answered by another account, for whom the query does not exist', async () => {
    const stream = await ask('turn on the lamp');
    const waiting = await stream.until('tool_call.awaiting_confirmation');
    const queryId = (stream.events[0] as unknown as { query_id: string }).query_id;
    const other = await createAccount(api.storage, { email: 'neighbour@example.test', scopes: ALL_SCOPES });
    const stolen = await call(
      'POST',
      `/queries/${queryId}/confirmations/${waiting.call_id}`,
      { approve: true },
      other.token,
    );
    expect(stolen.status).toBe(404);
    await call('POST', `/queries/${queryId}/confirmations/${waiting.call_id}`, { approve: false });
    await stream.rest();
    expect(switched).toEqual([]);
  });

  it('refuses the call and ends the query when nobody answers before the deadline', async () => {
    const stream = await ask('turn on the lamp');
    const events = await stream.rest();
    expect(switched).toEqual([]);
    expect(events.find((e) => e.type === 'tool_call.completed')).toMatchObject({ status: 'denied' });
    expect(events.at(-1)).toMatchObject({ type: 'query.incomplete', reason: 'confirmation_timeout' });
  });

  it('needs no confirmation for a tool the account allows without asking (PATCH /me, write:account)', async () => {
    const allow = (tools: string[], token = api.token) =>
      call('PATCH', '/me', { auto_approved_tools: tools }, token);
    expect(
      (await allow(['home_set_state'], await api.issueToken(['write:queries', 'read:account']))).status,
    ).toBe(403);
    const unknown = await allow(['home_explode']);
    expect(unknown.status).toBe(422);
    const allowed = await allow(['home_set_state']);
    expect(allowed.status).toBe(200);
    expect(((await allowed.json()) as { auto_approved_tools: string[] }).auto_approved_tools).toEqual([
      'home_set_state',
    ]);
    try {
      const events = await (await ask('turn on the lamp')).rest();
      expect(events.some((e) => e.type === 'tool_call.awaiting_confirmation')).toBe(false);
      expect(switched).toEqual(['lamp on']);
    } finally {
      await allow([]);
    }
  });
});

/**
 * An OAuth access token of this server, as its authorization server stores one: of `grantId` (an app's grant of
 * the test user), with `scopes`. Each call is a new token, as a refresh gives.
 */
async function oauthAccessToken(grantId: string, scopes: Scope[]): Promise<string> {
  const secret = randomBytes(32).toString('base64url');
  await api.storage.oauth.upsert(
    'AccessToken',
    secret,
    {
      accountId: api.userId,
      clientId: 'client_notes',
      grantId,
      scope: scopes.join(' '),
      aud: api.app.get(PublicAddress).apiResource,
      exp: Math.floor(Date.now() / 1000) + 900,
    },
    900,
  );
  return secret;
}

describe('a query belongs to the principal that started it (B2)', () => {
  it('is as good as missing for another token of the account: status, events, confirmations and cancel are 404', async () => {
    const narrow = await api.issueToken(['write:queries']);
    const stream = await ask('turn on the lamp');
    const waiting = await stream.until('tool_call.awaiting_confirmation');
    const queryId = (stream.events[0] as unknown as { query_id: string }).query_id;

    expect((await call('GET', `/queries/${queryId}`, undefined, narrow)).status).toBe(404);
    expect((await call('GET', `/queries/${queryId}/events`, undefined, narrow)).status).toBe(404);
    const approval = `/queries/${queryId}/confirmations/${waiting.call_id}`;
    expect((await call('POST', approval, { approve: true }, narrow)).status).toBe(404);
    expect((await call('POST', `/queries/${queryId}/cancel`, undefined, narrow)).status).toBe(404);
    expect(switched).toEqual([]);

    expect((await call('POST', approval, { approve: false })).status).toBe(200);
    await stream.rest();
    expect(switched).toEqual([]);
  });

  it("follows an OAuth grant across its refreshed access tokens, and needs the tool's scope to approve", async () => {
    const grantId = `grant_${randomBytes(6).toString('hex')}`;
    const first = await oauthAccessToken(grantId, ['write:queries', 'write:home']);
    const stream = await ask('turn on the lamp', first);
    const waiting = await stream.until('tool_call.awaiting_confirmation');
    const queryId = (stream.events[0] as unknown as { query_id: string }).query_id;
    const approval = `/queries/${queryId}/confirmations/${waiting.call_id}`;

    // Another grant (another app, or the same app authorized again) does not see it.
    const stranger = await oauthAccessToken(`grant_${randomBytes(6).toString('hex')}`, [
      'write:queries',
      'write:home',
    ]);
    expect((await call('GET', `/queries/${queryId}`, undefined, stranger)).status).toBe(404);
    expect((await call('POST', approval, { approve: true }, stranger)).status).toBe(404);

    // The grant's next access token, narrowed to write:queries, still follows its query but cannot approve the call.
    const refreshed = await oauthAccessToken(grantId, ['write:queries']);
    expect((await call('GET', `/queries/${queryId}`, undefined, refreshed)).status).toBe(200);
    const resumed = await call('GET', `/queries/${queryId}/events`, undefined, refreshed);
    expect(resumed.status).toBe(200);
    await resumed.body?.cancel();
    const refused = await call('POST', approval, { approve: true }, refreshed);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe('insufficient_scope');
    expect(refused.headers.get('www-authenticate')).toContain('scope="write:home"');
    expect(switched).toEqual([]);

    const withScope = await oauthAccessToken(grantId, ['write:queries', 'write:home']);
    expect((await call('POST', approval, { approve: true }, withScope)).status).toBe(200);
    await stream.rest();
    expect(switched).toEqual(['lamp on']);
  });
});
