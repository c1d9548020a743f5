/**
 * What `assistant chat` shows for a query's event stream: the answer on stdout, what the assistant does on stderr
 * (on a terminal only), confirmations, and how a failure ends the text. The events come from a stand-in of the
 * API (`startStandInApi`: node:http, scripted SSE frames as SPEC §4 writes them) through the real client, so the
 * renderer is fed exactly what it is fed in use; stdout and stderr are captured in the order they were written.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { QueryEvent } from '@assistant/client';
import { runChat, type Outcome } from './chat-run';
import type { ChatFlagValues } from './chat-flags';

type EventBody = QueryEvent extends infer E
  ? E extends unknown
    ? Omit<E, 'sequence_number'>
    : never
  : never;

/** A confirmation the stand-in API was sent. */
interface Confirmation {
  path: string;
  approve: unknown;
}

/**
 * A stand-in of the API for one query: `POST /api/v1/queries` streams `before`, and once a confirmation has been
 * posted (when `before` ends awaiting one) streams what `after` makes of the user's answer.
 */
interface StandInApi {
  url: string;
  confirmations: Confirmation[];
  close(): Promise<void>;
}

async function startStandInApi(
  before: EventBody[],
  after: (approve: boolean) => EventBody[] = () => [],
): Promise<StandInApi> {
  const confirmations: Confirmation[] = [];
  let answered: ((approve: boolean) => void) | undefined;
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    void (async () => {
      const body = await readBody(request);
      if (request.method === 'POST' && request.url === '/api/v1/queries') {
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        let sequence = 0;
        const send = (events: EventBody[]) => {
          for (const event of events) {
            sequence += 1;
            const data = JSON.stringify({ ...event, sequence_number: sequence });
            response.write(`id: ${sequence}\nevent: ${event.type}\ndata: ${data}\n\n`);
          }
        };
        send(before);
        if (before.at(-1)?.type === 'tool_call.awaiting_confirmation') {
          send(after(await new Promise<boolean>((resolve) => (answered = resolve))));
        }
        response.end();
        return;
      }
      if (request.method === 'POST' && request.url?.includes('/confirmations/')) {
        const { approve } = JSON.parse(body) as { approve: unknown };
        confirmations.push({ path: request.url, approve });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ call_id: 'call_2', approved: approve }));
        answered?.(approve === true);
        return;
      }
      response.writeHead(404, { 'content-type': 'application/problem+json' });
      response.end(JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'no' }));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    confirmations,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** What the terminal shows: which stream each write went to, in order. */
type Write = ['out' | 'err', string];

interface Terminal {
  /** Whether stdout and stderr are terminals (a TTY), and whether stdin is one (someone to ask). */
  stdout: boolean;
  stderr: boolean;
  colors?: boolean;
}

/**
 * Runs `assistant chat <text>` against `api` on a terminal shaped as `terminal`, and returns how it ended and
 * every write to stdout and stderr.
 */
async function chat(
  api: StandInApi,
  terminal: Terminal,
  flags: Partial<ChatFlagValues> = {},
): Promise<{ outcome: Outcome; writes: Write[]; stdout: string; stderr: string }> {
  const writes: Write[] = [];
  const capture = (stream: NodeJS.WriteStream, name: Write[0]) =>
    jest.spyOn(stream, 'write').mockImplementation(((chunk: string | Uint8Array) => {
      writes.push([name, String(chunk)]);
      return true;
    }) as typeof stream.write);
  const restore = [
    tty(process.stdout, terminal.stdout),
    tty(process.stderr, terminal.stderr),
    tty(process.stdin, false),
    env('NO_COLOR', terminal.colors ? undefined : '1'),
    env('TERM', 'xterm-256color'),
    env('ASSISTANT_BASE_URL', undefined),
    env('ASSISTANT_API_TOKEN', undefined),
  ];
  const spies = [capture(process.stdout, 'out'), capture(process.stderr, 'err')];
  try {
    const outcome = await runChat('when is my next meeting?', { url: api.url, token: 'ast_test', ...flags });
    const of = (name: Write[0]) =>
      writes
        .filter(([stream]) => stream === name)
        .map(([, text]) => text)
        .join('');
    return { outcome, writes, stdout: of('out'), stderr: of('err') };
  } finally {
    for (const spy of spies) spy.mockRestore();
    for (const undo of restore.reverse()) undo();
  }
}

function tty(stream: NodeJS.ReadStream | NodeJS.WriteStream, isTTY: boolean): () => void {
  const own = Object.getOwnPropertyDescriptor(stream, 'isTTY');
  Object.defineProperty(stream, 'isTTY', { value: isTTY, configurable: true, writable: true });
  return () =>
    own ? Object.defineProperty(stream, 'isTTY', own) : delete (stream as { isTTY?: boolean }).isTTY;
}

function env(name: string, value: string | undefined): () => void {
  const before = process.env[name];
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
  return () => {
    if (before === undefined) delete process.env[name];
    else process.env[name] = before;
  };
}

const CREATED: EventBody = {
  type: 'query.created',
  query_id: 'qry_1',
  discussion_id: 'dsc_1',
  message_id: 'msg_2',
  model: 'builtin',
};
const delta = (text: string): EventBody => ({ type: 'output_text.delta', delta: text });
const completed = (text: string): EventBody => ({
  type: 'query.completed',
  message_id: 'msg_2',
  text,
  usage: { input_tokens: 10, output_tokens: 6 },
  finish_reason: 'stop',
});

/** A question answered with a look at the calendar and a memory saved on the way. */
const ANSWER_WITH_A_TOOL: EventBody[] = [
  CREATED,
  delta('Let me look.'),
  { type: 'tool_call.started', call_id: 'call_1', tool: 'calendar_list_events', arguments: { days: 1 } },
  { type: 'tool_call.completed', call_id: 'call_1', tool: 'calendar_list_events', status: 'ok', output: [] },
  delta(' Your next meeting is at 10:00,\n'),
  { type: 'memory.saved', memory_id: 'mem_1', content: 'has a   meeting\nevery morning' },
  delta('in the café.'),
  completed('Let me look. Your next meeting is at 10:00,\nin the café.'),
];

const SEND_AN_EMAIL: EventBody[] = [
  CREATED,
  delta('I will send it.'),
  {
    type: 'tool_call.awaiting_confirmation',
    call_id: 'call_2',
    tool: 'email_send',
    arguments: { to: 'bob@example.test', subject: 'Lunch' },
  },
];
const afterConfirmation = (approve: boolean): EventBody[] => [
  { type: 'tool_call.completed', call_id: 'call_2', tool: 'email_send', status: approve ? 'ok' : 'denied' },
  completed(approve ? 'I will send it. Sent.' : 'I will send it. Not sent.'),
];

let api: StandInApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('assistant chat on a terminal', () => {
  it('streams the text on stdout, and each tool call and saved memory as a line of its own on stderr', async () => {
    api = await startStandInApi(ANSWER_WITH_A_TOOL);

    const { outcome, writes } = await chat(api, { stdout: true, stderr: true });

    expect(outcome).toEqual({ code: 0 });
    expect(writes).toEqual([
      ['out', 'Let me look.'],
      // The text breaks its line so that the activity does not land in its middle.
      ['out', '\n'],
      ['err', '→ calendar_list_events {"days":1}\n'],
      ['err', '← calendar_list_events: ok\n'],
      ['out', ' Your next meeting is at 10:00,\n'],
      // Already at the start of a line: no empty line. Whitespace and newlines of the memory folded.
      ['err', '✓ remembered: has a meeting every morning\n'],
      ['out', 'in the café.'],
      // The answer's last line is ended, then how to go on.
      ['out', '\n'],
      ['err', 'discussion dsc_1 · continue with: assistant chat --discussion dsc_1 "…"\n'],
    ]);
  });

  it('dims the lines on stderr when colours are on', async () => {
    api = await startStandInApi(ANSWER_WITH_A_TOOL);

    const { stderr } = await chat(api, { stdout: true, stderr: true, colors: true });

    expect(stderr.split('\n').filter(Boolean)).toEqual([
      '\u001b[2m→ calendar_list_events {"days":1}\u001b[22m',
      '\u001b[2m← calendar_list_events: ok\u001b[22m',
      '\u001b[2m✓ remembered: has a meeting every morning\u001b[22m',
      '\u001b[2mdiscussion dsc_1 · continue with: assistant chat --discussion dsc_1 "…"\u001b[22m',
    ]);
  });

  it('shortens long tool arguments to one line with an ellipsis, and says why a call failed', async () => {
    const long = 'x'.repeat(200);
    api = await startStandInApi([
      CREATED,
      { type: 'tool_call.started', call_id: 'call_1', tool: 'web_fetch', arguments: { url: long } },
      {
        type: 'tool_call.completed',
        call_id: 'call_1',
        tool: 'web_fetch',
        status: 'error',
        error: 'the page\ndid not answer',
      },
      completed('I could not read it.'),
    ]);

    const { stderr } = await chat(api, { stdout: true, stderr: true });

    const [started, ended] = stderr.split('\n');
    expect(started).toBe(`→ web_fetch ${`{"url":"${long}"}`.slice(0, 79)}…`);
    expect(ended).toBe('← web_fetch: error (the page did not answer)');
  });

  it('prints the completed event’s text when the model streamed none', async () => {
    api = await startStandInApi([CREATED, completed('It is 10:00.')]);

    const { outcome, stdout } = await chat(api, { stdout: true, stderr: true });

    expect(outcome).toEqual({ code: 0 });
    expect(stdout).toBe('It is 10:00.\n');
  });
});

describe('assistant chat piped', () => {
  it('writes the answer alone on stdout, and nothing on stderr', async () => {
    api = await startStandInApi(ANSWER_WITH_A_TOOL);

    const { stdout, stderr } = await chat(api, { stdout: false, stderr: false });

    expect(stdout).toBe('Let me look. Your next meeting is at 10:00,\nin the café.\n');
    expect(stderr).toBe('');
  });

  it('--json writes each event as one JSON object a line, and no text of its own', async () => {
    api = await startStandInApi(ANSWER_WITH_A_TOOL);

    const { stdout, stderr } = await chat(api, { stdout: false, stderr: true }, { json: true });

    const lines = stdout.trimEnd().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as QueryEvent).type)).toEqual(
      ANSWER_WITH_A_TOOL.map((event) => event.type),
    );
    expect((JSON.parse(lines[1] ?? '') as QueryEvent).sequence_number).toBe(2);
    // No activity lines beside the JSON; only how to continue.
    expect(stderr).toBe('discussion dsc_1 · continue with: assistant chat --discussion dsc_1 "…"\n');
  });
});

describe('a call that changes something', () => {
  it('is approved with --yes: it says so on stderr and tells the server yes', async () => {
    api = await startStandInApi(SEND_AN_EMAIL, afterConfirmation);

    const { writes, stdout } = await chat(api, { stdout: true, stderr: true }, { yes: true });

    expect(api.confirmations).toEqual([
      { path: '/api/v1/queries/qry_1/confirmations/call_2', approve: true },
    ]);
    expect(writes.slice(0, 3)).toEqual([
      ['out', 'I will send it.'],
      ['out', '\n'],
      ['err', 'approved (--yes): email_send {"to":"bob@example.test","subject":"Lunch"}\n'],
    ]);
    expect(writes).toContainEqual(['err', '← email_send: ok\n']);
    // The answer streamed its text already: the completed event's copy of it is not printed again.
    expect(stdout).toBe('I will send it.\n');
  });

  it('is refused when there is no terminal to ask: it says so on stderr and tells the server no', async () => {
    api = await startStandInApi(SEND_AN_EMAIL, afterConfirmation);

    const { stderr } = await chat(api, { stdout: false, stderr: false });

    expect(api.confirmations).toEqual([
      { path: '/api/v1/queries/qry_1/confirmations/call_2', approve: false },
    ]);
    expect(stderr).toBe(
      'assistant: refused email_send {"to":"bob@example.test","subject":"Lunch"}: no terminal to ask for a confirmation (approve with --yes)\n',
    );
  });
});

describe('a query that does not complete', () => {
  it('ends the text’s line and says why, and the command fails', async () => {
    api = await startStandInApi([
      CREATED,
      delta('Let me'),
      {
        type: 'query.failed',
        error: {
          type: 'about:blank',
          title: 'Model unavailable',
          status: 502,
          code: 'model_unavailable',
          detail: 'the model server did not answer',
          request_id: 'req_1',
        },
      } as EventBody,
    ]);

    const { outcome, writes } = await chat(api, { stdout: true, stderr: true });

    expect(outcome.code).not.toBe(0);
    expect(outcome.message).toBe('the query failed: the model server did not answer');
    expect(writes.slice(0, 2)).toEqual([
      ['out', 'Let me'],
      ['out', '\n'],
    ]);
    expect(writes.at(-1)).toEqual([
      'err',
      'discussion dsc_1 · continue with: assistant chat --discussion dsc_1 "…"\n',
    ]);
  });

  // Known defect, left to chat-run.ts's owner: run() ends the text's line without noting it (`atLineStart`), so the
  // note after an error ends it again. Remove `.failing` once fixed.
  it('ends the text’s line once: no empty line between the text and the note after an error', async () => {
    api = await startStandInApi([CREATED, delta('Let me'), { type: 'query.incomplete', reason: 'timeout' }]);

    const { stdout } = await chat(api, { stdout: true, stderr: true });

    expect(stdout).toBe('Let me\n');
  });

  it('says which limit stopped it', async () => {
    api = await startStandInApi([CREATED, { type: 'query.incomplete', reason: 'max_steps' }]);

    const { outcome, stdout } = await chat(api, { stdout: false, stderr: false });

    expect(outcome.code).not.toBe(0);
    expect(outcome.message).toBe('the query did not complete: it reached the limit of tool steps');
    expect(stdout).toBe('');
  });
});
