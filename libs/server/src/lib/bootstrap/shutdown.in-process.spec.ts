/**
 * A request that reaches the server while it drains (on a connection already busy when the shutdown began) is
 * refused like any other error: problem+json with a request id, not Fastify's own plain 503.
 */
import { connect } from 'node:net';
import { setTimeout as pause } from 'node:timers/promises';
import { startInProcessApp } from '../../testing/in-process-app';
import { parseResponse } from '../../testing/raw-http';
import { drain } from './shutdown';

it('a request that arrives during shutdown gets a service_unavailable problem and the connection closes', async () => {
  const api = await startInProcessApp();
  const { hostname, port } = new URL(await api.listen());
  const socket = connect(Number(port), hostname);
  let raw = '';
  socket.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  // The request has begun (so the connection is not idle, and survives the shutdown's closing of idle ones)...
  socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
  await pause(50);
  const shutdown = api.close();
  // ...and is complete only once the server has stopped accepting connections.
  const server = api.app.getHttpServer();
  while (server.listening) await pause(5);
  socket.write('\r\n');
  await closed;
  await shutdown;

  const response = parseResponse(raw);
  expect(response?.status).toBe(503);
  expect(response?.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(response?.headers.connection).toBe('close');
  expect(response?.headers['retry-after']).toBe('1');
  const problem = JSON.parse(response?.body ?? '{}') as { code: string; request_id: string };
  expect(problem.code).toBe('service_unavailable');
  expect(problem.request_id).toBe(response?.headers['x-request-id']);
});

describe('draining before a stop (SIGTERM)', () => {
  /** The `data:` objects of an event stream, in order. */
  const eventsOf = (body: string) =>
    body
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map(
        (line) =>
          JSON.parse(line.slice('data: '.length)) as { type: string; reason?: string; query_id?: string },
      );

  async function startWithPacing(pacingMs: number) {
    const api = await startInProcessApp({ env: { ASSISTANT_BUILTIN_PACING_MS: String(pacingMs) } });
    const url = await api.listen();
    const ask = () =>
      fetch(`${url}/api/v1/queries`, {
        method: 'POST',
        headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'what can you do?' }),
      });
    return { api, url, ask };
  }

  it('refuses new queries with 503 and reports not ready, while running queries finish within the grace', async () => {
    const { api, url, ask } = await startWithPacing(20);
    try {
      const running = await ask();
      expect(running.status).toBe(200);
      const answer = running.text();
      const draining = drain(api.app, 30_000);

      const refused = await ask();
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(((await refused.json()) as { code: string }).code).toBe('service_unavailable');
      const readiness = await fetch(`${url}/readyz`);
      expect(readiness.status).toBe(503);
      expect(((await readiness.json()) as { detail: string }).detail).toContain('shutdown');
      // Reads are still served.
      const me = await fetch(`${url}/api/v1/me`, { headers: { authorization: `Bearer ${api.token}` } });
      expect(me.status).toBe(200);

      await draining;
      expect(eventsOf(await answer).at(-1)?.type).toBe('query.completed');
    } finally {
      await api.close();
    }
  });

  it('ends the queries still running after the grace with query.incomplete (interrupted), stored', async () => {
    const { api, ask } = await startWithPacing(200);
    try {
      const streams = await Promise.all([ask(), ask()]);
      const answers = streams.map((s) => s.text());
      await pause(300);
      const started = Date.now();
      await drain(api.app, 300);
      expect(Date.now() - started).toBeLessThan(3_000);
      for (const answer of answers) {
        const events = eventsOf(await answer);
        expect(events.at(-1)).toMatchObject({ type: 'query.incomplete', reason: 'interrupted' });
        const stored = await api.storage.queries.events(events[0].query_id as string, 0);
        expect(stored.at(-1)).toMatchObject({ type: 'query.incomplete', reason: 'interrupted' });
        expect(stored).toHaveLength(events.length);
      }
    } finally {
      await api.close();
    }
  });
});
