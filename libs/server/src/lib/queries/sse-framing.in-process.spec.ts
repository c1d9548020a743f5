/**
 * The wire format of a query's event stream (SPEC §4), read raw from the real app: every event is an `id:`
 * line (1, 2, 3…), an `event:` line and a `data:` line that agree with each other; exactly one terminal event,
 * last; and a resume with Last-Event-ID replays exactly the rest. A client resumes with the `id:` it saw last,
 * so a stream without `id:` lines cannot be resumed: dropping them in sse-stream.ts turns this red.
 */
import * as vm from 'node:vm';
import { isTerminalEvent, queryEventSchema, type QueryEvent } from '@assistant/contracts';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';

interface Frame {
  /** Each field of the frame, by name, in the order they came. */
  fields: [string, string][];
  event: QueryEvent;
}

/** Splits an event-stream body into frames, leaving out `: ping` comments. */
function framesOf(body: string): Frame[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() !== '' && !block.startsWith(':'))
    .map((block) => {
      const fields = block.split('\n').map((line): [string, string] => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon), line.slice(colon + 1).replace(/^ /, '')];
      });
      const data = fields.find(([name]) => name === 'data')?.[1];
      return { fields, event: queryEventSchema.parse(JSON.parse(data ?? 'null')) };
    });
}

let api: InProcessApp;
let body: string;
let frames: Frame[];

beforeAll(async () => {
  // agent-core's build loads the AI SDK with import() on the first query, which jest runs only with VM modules.
  if (typeof (vm as { SyntheticModule?: unknown }).SyntheticModule !== 'function') {
    throw new Error(
      'Run this suite with node --experimental-vm-modules (a query imports the AI SDK): ' +
        '`nx test @assistant/server` does, or NODE_OPTIONS=--experimental-vm-modules npx jest ...',
    );
  }
  api = await startInProcessApp();
  const res = await api.inject({
    method: 'POST',
    url: '/api/v1/queries',
    payload: { text: "remember that my sister's birthday is on March 3" },
  });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
  body = res.body;
  frames = framesOf(body);
});
afterAll(() => api?.close());

describe('the event stream of POST /api/v1/queries', () => {
  it('has an event for each step of the run (a tool call, a saved memory, text)', () => {
    const types = frames.map((f) => f.event.type);

    expect(types[0]).toBe('query.created');
    expect(types).toEqual(
      expect.arrayContaining([
        'tool_call.started',
        'tool_call.completed',
        'memory.saved',
        'output_text.delta',
      ]),
    );
  });

  it('frames every event as id, event and data lines that agree', () => {
    frames.forEach((frame, i) => {
      expect(frame.fields.map(([name]) => name)).toEqual(['id', 'event', 'data']);
      expect(frame.fields[0][1]).toBe(String(i + 1));
      expect(frame.fields[1][1]).toBe(frame.event.type);
      expect(frame.event.sequence_number).toBe(i + 1);
    });
  });

  it('ends with exactly one terminal event, the last one', () => {
    const terminal = frames.filter((f) => isTerminalEvent(f.event));

    expect(terminal).toHaveLength(1);
    expect(frames.at(-1)).toBe(terminal[0]);
    expect(terminal[0].event.type).toBe('query.completed');
  });

  it('replays exactly the events after Last-Event-ID on GET /queries/{id}/events', async () => {
    const created = frames[0].event;
    if (created.type !== 'query.created') throw new Error(`the stream began with ${created.type}`);
    const queryId = created.query_id;
    const lastSeen = frames[Math.floor(frames.length / 2) - 1].fields[0][1];

    const res = await api.inject({
      method: 'GET',
      url: `/api/v1/queries/${queryId}/events`,
      headers: { 'last-event-id': lastSeen },
    });

    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(body.slice(body.indexOf(`id: ${Number(lastSeen) + 1}\n`)));
  });
});
