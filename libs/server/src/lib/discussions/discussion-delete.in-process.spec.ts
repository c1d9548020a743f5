import { DEFAULT_RUN_LIMITS } from '@assistant/agent-core';
import type { Discussion, Query } from '@assistant/contracts';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';

/** The `data:` objects of an event stream, in order. */
function eventsOf(body: string): Array<{ type: string; sequence_number: number; reason?: string }> {
  return body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)));
}

describe('deleting a discussion while a query runs in it', () => {
  let api: InProcessApp;
  let url: string;
  beforeAll(async () => {
    api = await startInProcessApp({
      config: {
        queries: {
          // Slow enough that the delete lands in the middle of the answer.
          models: { defaultModel: 'builtin', builtinPacingMs: 100 },
          maxConcurrentPerUser: 4,
          limits: DEFAULT_RUN_LIMITS,
          pingIntervalMs: 15_000,
          timeZone: 'UTC',
          confirmationTimeoutMs: 300_000,
        },
      },
    });
    url = await api.listen();
  });
  afterAll(() => api.close());

  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${url}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${api.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('cancels the run: the stream ends with query.incomplete (cancelled), not a failure', async () => {
    const discussion = (await (await call('POST', '/discussions', { title: 'Doomed' })).json()) as Discussion;
    const streaming = await call('POST', '/queries', {
      text: 'what can you do?',
      discussion_id: discussion.id,
    });
    expect(streaming.status).toBe(200);
    const body = streaming.text();
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect((await call('DELETE', `/discussions/${discussion.id}`)).status).toBe(204);

    const events = eventsOf(await body);
    expect(events[0].type).toBe('query.created');
    expect(events.at(-1)).toMatchObject({ type: 'query.incomplete', reason: 'cancelled' });
    expect(events.filter((e) => e.type.startsWith('query.') && e.type !== 'query.created')).toHaveLength(1);
    const queryId = (events[0] as unknown as { query_id: string }).query_id;
    const query = (await (await call('GET', `/queries/${queryId}`)).json()) as Query;
    expect(query.status).toBe('incomplete');
    expect((await call('GET', `/discussions/${discussion.id}`)).status).toBe(404);
    expect(api.logs().filter((line) => Number(line.level) >= 50)).toEqual([]);
  });
});
