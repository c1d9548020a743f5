/**
 * Deadlines for what clients send: a stalled body or unfinished headers are answered 408 and closed (before,
 * such a connection stayed open for ever, with no token needed), while an event stream that is silent for
 * longer than the idle deadline is not cut. The deadlines are shortened here through the harness.
 */
import { type Problem } from '@assistant/contracts';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';
import { sendRaw } from '../../testing/raw-http';

const SHORT = { headersMs: 200, requestMs: 300, idleMs: 500, checkEveryMs: 50 };
/** The built-in model's pause between words: longer than every deadline above. */
const PACING_MS = 900;

let api: InProcessApp;
let url: string;
beforeAll(async () => {
  api = await startInProcessApp({ timeouts: SHORT, env: { ASSISTANT_BUILTIN_PACING_MS: String(PACING_MS) } });
  url = await api.listen();
});
afterAll(() => api?.close());

it('answers a body shorter than its Content-Length with 408 and closes, within the deadline', async () => {
  const stalled =
    'POST /api/v1/memories HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
    `Authorization: Bearer ${api.token}\r\nContent-Length: 1000\r\n\r\n{"content":`;

  const { closed, response, elapsedMs } = await sendRaw(url, stalled, 3_000);

  expect(closed).toBe(true);
  expect(elapsedMs).toBeLessThan(2_000);
  expect(response?.status).toBe(408);
  expect(JSON.parse(response?.body ?? '{}') as Problem).toMatchObject({ code: 'request_timeout' });
  // The client's doing, not a bug: nothing at error level.
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(api.logs().filter((line) => (line.level as number) >= 50)).toEqual([]);
});

it('answers headers that never end with 408 and closes', async () => {
  const { closed, response } = await sendRaw(url, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: a', 3_000);

  expect(closed).toBe(true);
  expect(response?.status).toBe(408);
});

it('does not cut an event stream that is silent for longer than any deadline', async () => {
  const res = await fetch(`${url}/api/v1/queries`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'thanks' }),
  });
  const started = Date.now();
  const stream = await res.text();

  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  expect(Date.now() - started).toBeGreaterThanOrEqual(PACING_MS - 100);
  expect(stream).toContain('event: query.completed');
});
