/**
 * A request that reaches the server while it drains (on a connection already busy when the shutdown began) is
 * refused like any other error: problem+json with a request id, not Fastify's own plain 503.
 */
import { connect } from 'node:net';
import { setTimeout as pause } from 'node:timers/promises';
import { startInProcessApp } from '../../testing/in-process-app';
import { parseResponse } from '../../testing/raw-http';

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
