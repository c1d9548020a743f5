/**
 * A scripted OpenAI Chat Completions server, for tests and benchmarks.
 *
 * It stands in for a language model that cannot run on this machine (no GPU, no weights, no internet): it speaks
 * the wire protocol of `POST /v1/chat/completions` exactly as llama.cpp server, vLLM, LM Studio and Ollama's `/v1`
 * do, over a real HTTP socket, so the code under test (the Vercel AI SDK's OpenAI-compatible provider inside
 * agent-core, the self-hosted server, the benchmarks) runs unchanged. What the "model" answers is scripted by the
 * test: it is not a language model and does not read the prompt unless a responder does.
 *
 * Endpoints:
 *   GET  /v1/models            → `{ object: "list", data: [{ id, object: "model", created, owned_by }] }`
 *   POST /v1/chat/completions  → `stream: true`: Server-Sent Events, `data: <chat.completion.chunk JSON>\n\n` … and
 *                                 `data: [DONE]\n\n` (with `stream_options.include_usage`: a last chunk with
 *                                 `choices: []` and `usage` before `[DONE]`); `stream: false`: one `chat.completion`.
 *
 * Which step answers a request: the responder (`respond(fn)`) if it returns a step, else the next queued step
 * (`script(...)`, one per request), else the default step (`setDefault`, initially a text step
 * "fixture: no scripted response"). See `FixtureStep` for what each step does.
 */
import { randomBytes } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** Token counts reported in `usage`; by default prompt ≈ characters of the messages / 4, completion = pieces sent. */
export interface FixtureUsage {
  promptTokens?: number;
  completionTokens?: number;
}

/**
 * Answer with text. A string is sent in word-sized pieces (each word with its trailing white space); an array is
 * sent as given, one delta per element. `intervalMs` waits between pieces (default 0), `delayMs` before the first.
 */
export interface FixtureTextStep {
  text: string | string[];
  intervalMs?: number;
  delayMs?: number;
  /** Default "stop"; e.g. "length" to simulate max_tokens. */
  finishReason?: string;
  usage?: FixtureUsage;
  /**
   * Thinking text sent before `text` as `reasoning_content` deltas (pieces as for `text`), as llama.cpp and vLLM do
   * for reasoning models; in non-stream mode `message.reasoning_content`.
   */
  reasoning?: string | string[];
}

export interface FixtureToolCall {
  /** Default `call_<random hex>`. */
  id?: string;
  name: string;
  /** An object is serialised with JSON.stringify; a string is sent verbatim (so it may be invalid JSON on purpose). */
  arguments: Record<string, unknown> | string;
}

/**
 * Answer with tool calls, streamed as OpenAI does: per call, a first delta with `index`, `id`, `type: "function"`,
 * `function.name` and empty `arguments`, then the arguments in several pieces (`argumentPieces`, default 4);
 * `finish_reason` is "tool_calls". Optional `text` is streamed before the calls (some models think aloud first).
 */
export interface FixtureToolCallsStep {
  toolCalls: FixtureToolCall[];
  text?: string | string[];
  argumentPieces?: number;
  intervalMs?: number;
  delayMs?: number;
  usage?: FixtureUsage;
}

/**
 * A chunk that is not valid JSON mid-stream: optional `text` pieces, then `data: {"id":` (cut short), then
 * `data: [DONE]`. In non-stream mode the body itself is truncated JSON (status 200).
 */
export interface FixtureMalformedStep {
  malformed: true;
  text?: string | string[];
}

/** An HTTP error before any streaming, with an OpenAI-style `{ error: { message, type, param, code } }` body. */
export interface FixtureErrorStep {
  status: number;
  /** Replaces the default error body: a string is sent verbatim, anything else as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * Accept the request and never finish it, until the client goes away or the fixture closes (which ends it
 * without `[DONE]`). With `headers` (default true) the 200 SSE headers and any `text` pieces are sent first;
 * without, nothing at all is sent.
 */
export interface FixtureHangStep {
  hang: true;
  headers?: boolean;
  text?: string | string[];
}

/**
 * A connection that drops mid-answer (a server that crashes, a network that fails): the 200 SSE headers and any
 * `text` pieces, then the socket is destroyed without ending the response. In non-stream mode the socket is
 * destroyed before any answer.
 */
export interface FixtureDropStep {
  drop: true;
  text?: string | string[];
}

/**
 * A failure reported inside the stream, as llama.cpp and vLLM do when generation fails after the 200: any `text`
 * pieces, then `data: {"error": {message, type, code}}` in place of a chunk, then `data: [DONE]`. In non-stream
 * mode: an HTTP 500 with the same error body.
 */
export interface FixtureStreamErrorStep {
  streamError: { message: string; type?: string; code?: number | string };
  text?: string | string[];
}

/**
 * For benchmarks: `tokens` content deltas on an absolute schedule (token i is due at start + i × intervalMs, so
 * timer lateness never accumulates). Each delta's content is the `process.hrtime.bigint()` read just before it is
 * written, as a decimal string followed by one space; a client on the same machine subtracts it from its own
 * `process.hrtime.bigint()` on receipt to get the transit delay in nanoseconds.
 */
export interface FixtureTokensStep {
  tokens: number;
  intervalMs: number;
}

export type FixtureStep =
  | FixtureTextStep
  | FixtureToolCallsStep
  | FixtureMalformedStep
  | FixtureErrorStep
  | FixtureHangStep
  | FixtureDropStep
  | FixtureStreamErrorStep
  | FixtureTokensStep;

export interface FixtureMessage {
  role: string;
  content?: unknown;
  tool_calls?: unknown;
  tool_call_id?: string;
  [key: string]: unknown;
}

export interface FixtureTool {
  type: string;
  function?: { name: string; description?: string; parameters?: unknown };
  [key: string]: unknown;
}

/** One request to `POST /v1/chat/completions`, as parsed (recorded before it is answered). */
export interface FixtureRequest {
  /** 0, 1, 2… in arrival order. */
  index: number;
  model: string;
  messages: FixtureMessage[];
  tools: FixtureTool[] | undefined;
  stream: boolean;
  /** The whole parsed JSON body (tool_choice, temperature, stream_options…). */
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
}

/** Chooses the step for a request; `undefined` falls through to the queue, then the default. */
export type FixtureResponder = (request: FixtureRequest) => FixtureStep | undefined;

export interface OpenAiFixtureOptions {
  /** Default 0: any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Ids listed by GET /v1/models; default ["fixture"]. */
  models?: string[];
  /** The step used when no responder answers and the queue is empty. */
  defaultStep?: FixtureStep;
}

export interface OpenAiFixture {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:41234/v1`: what an OpenAI-compatible client takes as baseURL. */
  readonly url: string;
  readonly port: number;
  /** Every parsed chat-completions request, in arrival order. */
  readonly requests: FixtureRequest[];
  /** Steps not consumed yet. */
  readonly pendingSteps: number;
  /** Queues steps; each request consumes one. */
  script(...steps: FixtureStep[]): OpenAiFixture;
  /** Sets (or with undefined removes) the responder, consulted before the queue. */
  respond(responder: FixtureResponder | undefined): OpenAiFixture;
  /** Sets the step used when the queue is empty. */
  setDefault(step: FixtureStep): OpenAiFixture;
  /** Resolves once at least `count` requests have arrived (rejects after `timeoutMs`, default 10 s). */
  waitForRequests(count: number, timeoutMs?: number): Promise<FixtureRequest[]>;
  /** Empties the queue and the recorded requests, removes the responder and restores the default step. */
  reset(): void;
  /** Ends every open response (hanging ones without `[DONE]`) and closes the server. */
  close(): Promise<void>;
}

export const DEFAULT_FIXTURE_TEXT = 'fixture: no scripted response';

const DEFAULT_STEP: FixtureTextStep = { text: DEFAULT_FIXTURE_TEXT };

/** Everything the fixture writes for one response; `abort` wakes pending waits so the writer stops. */
class ResponseLife {
  aborted = false;
  private readonly wakers = new Set<() => void>();

  wait(ms: number): Promise<void> {
    if (this.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, ms));
      this.wakers.add(wake);
    });
  }

  /**
   * Waits until `process.hrtime.bigint()` reaches `due`. Timers run on the event loop's cached millisecond clock
   * and can fire early against the real time, so this checks and waits again until the moment has come.
   */
  async waitUntil(due: bigint): Promise<void> {
    for (let early = due - process.hrtime.bigint(); early > 0n && !this.aborted;) {
      await this.wait(Number(early) / 1e6);
      early = due - process.hrtime.bigint();
    }
  }

  abort(): void {
    this.aborted = true;
    for (const wake of [...this.wakers]) wake();
  }
}

interface OpenResponse {
  res: ServerResponse;
  life: ResponseLife;
}

class FixtureHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
  ) {
    super(message);
  }
}

export async function startOpenAiFixture(options: OpenAiFixtureOptions = {}): Promise<OpenAiFixture> {
  const host = options.host ?? '127.0.0.1';
  const models = options.models ?? ['fixture'];
  const initialDefault = options.defaultStep ?? DEFAULT_STEP;
  const created = Math.floor(Date.now() / 1000);

  const requests: FixtureRequest[] = [];
  const queue: FixtureStep[] = [];
  let responder: FixtureResponder | undefined;
  let defaultStep: FixtureStep = initialDefault;
  let closing = false;
  const open = new Set<OpenResponse>();
  const requestWaiters = new Set<() => void>();

  const server: Server = createServer({ noDelay: true, keepAliveTimeout: 5_000 }, (req, res) => {
    const life = new ResponseLife();
    const entry: OpenResponse = { res, life };
    open.add(entry);
    res.on('close', () => {
      life.abort();
      open.delete(entry);
    });
    handle(req, res, life).catch((error: unknown) => {
      if (!res.headersSent) {
        sendError(res, 500, error instanceof Error ? error.message : String(error), 'server_error');
      } else {
        res.destroy();
      }
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse, life: ResponseLife): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!.replace(/\/+$/, '');
    if (req.method === 'GET' && path === '/v1/models') {
      sendJson(res, 200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created, owned_by: 'fixture' })),
      });
      return;
    }
    if (path !== '/v1/chat/completions') {
      sendError(res, 404, `fixture: no route ${req.method ?? ''} ${path}`, 'invalid_request_error');
      return;
    }
    if (req.method !== 'POST') {
      sendError(res, 405, `fixture: ${req.method ?? ''} not allowed on ${path}`, 'invalid_request_error');
      return;
    }

    let request: FixtureRequest;
    try {
      request = parseRequest(await readBody(req), req.headers, requests.length);
    } catch (error) {
      if (error instanceof FixtureHttpError) {
        sendError(res, error.status, error.message, error.type);
        return;
      }
      throw error;
    }
    requests.push(request);
    for (const wake of [...requestWaiters]) wake();

    const step = responder?.(request) ?? queue.shift() ?? defaultStep;
    await answer(step, request, res, life);
  }

  async function answer(
    step: FixtureStep,
    request: FixtureRequest,
    res: ServerResponse,
    life: ResponseLife,
  ): Promise<void> {
    if ('status' in step) {
      const body =
        step.body ??
        ({
          error: {
            message: `fixture: scripted error ${step.status}`,
            type: step.status >= 500 ? 'server_error' : 'invalid_request_error',
            param: null,
            code: null,
          },
        } as const);
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      res.writeHead(step.status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
        ...step.headers,
      });
      res.end(text);
      return;
    }

    const stream = new ChunkWriter(request, res, life);
    if (!request.stream) {
      if ('drop' in step) {
        res.destroy();
        return;
      }
      if ('streamError' in step) {
        sendJson(res, 500, { error: { type: 'server_error', code: null, ...step.streamError } });
        return;
      }
      await answerWhole(step, request, res, life, stream.id);
      return;
    }

    if ('hang' in step) {
      if (step.headers === false) return; // nothing until the client leaves or the fixture closes
      stream.start();
      for (const piece of pieces(step.text ?? [])) stream.content(piece);
      return; // left open: close() or the client ends it
    }

    stream.start();
    if ('drop' in step) {
      for (const piece of pieces(step.text ?? [])) stream.content(piece);
      // Once the pieces are on the wire, cut the socket: no chunked terminator, so the client sees a broken body.
      res.write('', () => res.destroy());
      return;
    }
    if ('streamError' in step) {
      for (const piece of pieces(step.text ?? [])) stream.content(piece);
      stream.raw(
        `data: ${JSON.stringify({ error: { type: 'server_error', code: null, ...step.streamError } })}\n\n`,
      );
      stream.raw('data: [DONE]\n\n');
      res.end();
      return;
    }
    if ('tokens' in step) {
      const interval = BigInt(Math.round(Math.max(0, step.intervalMs) * 1e6));
      const start = process.hrtime.bigint();
      for (let i = 0; i < step.tokens; i += 1) {
        await life.waitUntil(start + BigInt(i) * interval);
        if (life.aborted) return;
        stream.content(`${process.hrtime.bigint()} `);
      }
      stream.finish('stop', undefined);
      return;
    }

    if ('malformed' in step) {
      for (const piece of pieces(step.text ?? [])) stream.content(piece);
      stream.raw(
        'data: {"id":"' + stream.id + '","object":"chat.completion.chunk","choices":[{"delta":{"cont\n\n',
      );
      stream.raw('data: [DONE]\n\n');
      res.end();
      return;
    }

    if ('toolCalls' in step) {
      await streamPieces(stream, life, pieces(step.text ?? []), step.delayMs, step.intervalMs);
      if (life.aborted) return;
      const pieceCount = Math.max(1, step.argumentPieces ?? 4);
      for (const [index, call] of step.toolCalls.entries()) {
        const args = argumentsText(call);
        stream.delta({
          tool_calls: [
            {
              index,
              id: call.id ?? newCallId(),
              type: 'function',
              function: { name: call.name, arguments: '' },
            },
          ],
        });
        for (const part of split(args, pieceCount)) {
          if (step.intervalMs) await life.wait(step.intervalMs);
          if (life.aborted) return;
          stream.delta({ tool_calls: [{ index, function: { arguments: part } }] });
        }
      }
      stream.finish('tool_calls', step.usage);
      return;
    }

    for (const piece of pieces(step.reasoning ?? [])) stream.delta({ reasoning_content: piece });
    await streamPieces(stream, life, pieces(step.text), step.delayMs, step.intervalMs);
    if (life.aborted) return;
    stream.finish(step.finishReason ?? 'stop', step.usage);
  }

  async function answerWhole(
    step: Exclude<FixtureStep, FixtureErrorStep | FixtureDropStep | FixtureStreamErrorStep>,
    request: FixtureRequest,
    res: ServerResponse,
    life: ResponseLife,
    id: string,
  ): Promise<void> {
    if ('hang' in step) {
      if (step.headers !== false) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
      }
      return;
    }
    if ('malformed' in step) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"id":"${id}","object":"chat.completion","choices":[{"message":{"cont`);
      return;
    }

    let content: string | null;
    let reasoning: string | undefined;
    let toolCalls: unknown[] | undefined;
    let finishReason: string;
    let completionTokens: number;
    let usage: FixtureUsage | undefined;
    if ('tokens' in step) {
      const parts: string[] = [];
      const interval = BigInt(Math.round(Math.max(0, step.intervalMs) * 1e6));
      const start = process.hrtime.bigint();
      for (let i = 0; i < step.tokens; i += 1) {
        await life.waitUntil(start + BigInt(i) * interval);
        if (life.aborted) return;
        parts.push(`${process.hrtime.bigint()} `);
      }
      content = parts.join('');
      finishReason = 'stop';
      completionTokens = step.tokens;
    } else if ('toolCalls' in step) {
      if (step.delayMs) await life.wait(step.delayMs);
      const text = pieces(step.text ?? []);
      content = text.length > 0 ? text.join('') : null;
      toolCalls = step.toolCalls.map((call) => ({
        id: call.id ?? newCallId(),
        type: 'function',
        function: { name: call.name, arguments: argumentsText(call) },
      }));
      finishReason = 'tool_calls';
      completionTokens = text.length + step.toolCalls.length;
      usage = step.usage;
    } else {
      if (step.delayMs) await life.wait(step.delayMs);
      const text = pieces(step.text);
      content = text.join('');
      reasoning = step.reasoning === undefined ? undefined : pieces(step.reasoning).join('');
      finishReason = step.finishReason ?? 'stop';
      completionTokens = text.length;
      usage = step.usage;
    }
    if (life.aborted) return;
    sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: request.model,
      system_fingerprint: 'fixture',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content,
            ...(reasoning !== undefined ? { reasoning_content: reasoning } : {}),
            ...(toolCalls ? { tool_calls: toolCalls } : {}),
          },
          logprobs: null,
          finish_reason: finishReason,
        },
      ],
      usage: usageJson(request, completionTokens, usage),
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  const fixture: OpenAiFixture = {
    url: `http://${urlHost}:${port}/v1`,
    port,
    requests,
    get pendingSteps() {
      return queue.length;
    },
    script(...steps) {
      queue.push(...steps);
      return fixture;
    },
    respond(fn) {
      responder = fn;
      return fixture;
    },
    setDefault(step) {
      defaultStep = step;
      return fixture;
    },
    waitForRequests(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        if (requests.length >= count) {
          resolve(requests.slice());
          return;
        }
        const timer = setTimeout(() => {
          requestWaiters.delete(check);
          reject(new Error(`fixture: ${requests.length} of ${count} requests after ${timeoutMs} ms`));
        }, timeoutMs);
        const check = (): void => {
          if (requests.length < count) return;
          clearTimeout(timer);
          requestWaiters.delete(check);
          resolve(requests.slice());
        };
        requestWaiters.add(check);
      });
    },
    reset() {
      queue.length = 0;
      requests.length = 0;
      responder = undefined;
      defaultStep = initialDefault;
    },
    close() {
      if (closing) return Promise.resolve();
      closing = true;
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const { res, life } of [...open]) {
          life.abort();
          if (res.headersSent) res.end();
          else res.destroy();
        }
        server.closeIdleConnections();
        // Responses ended above close their sockets once flushed; anything left is cut.
        setImmediate(() => server.closeAllConnections());
      });
    },
  };
  return fixture;
}

/** Writes `chat.completion.chunk` events for one streamed response. */
class ChunkWriter {
  readonly id = `chatcmpl-${randomBytes(12).toString('hex')}`;
  private readonly created = Math.floor(Date.now() / 1000);
  private readonly includeUsage: boolean;
  private completionPieces = 0;

  constructor(
    private readonly request: FixtureRequest,
    private readonly res: ServerResponse,
    private readonly life: ResponseLife,
  ) {
    const streamOptions = request.body['stream_options'];
    this.includeUsage =
      typeof streamOptions === 'object' &&
      streamOptions !== null &&
      (streamOptions as Record<string, unknown>)['include_usage'] === true;
  }

  /** Headers, then the role chunk that OpenAI and vLLM send first (empty content). */
  start(): void {
    this.res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    this.chunk([
      { index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null },
    ]);
  }

  content(text: string): void {
    this.delta({ content: text });
  }

  delta(delta: Record<string, unknown>): void {
    this.completionPieces += 1;
    this.chunk([{ index: 0, delta, logprobs: null, finish_reason: null }]);
  }

  finish(finishReason: string, usage: FixtureUsage | undefined): void {
    if (this.life.aborted) return;
    this.chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason }]);
    if (this.includeUsage) {
      this.chunk([], usageJson(this.request, this.completionPieces, usage));
    }
    this.raw('data: [DONE]\n\n');
    this.res.end();
  }

  raw(text: string): void {
    if (!this.life.aborted) this.res.write(text);
  }

  private chunk(choices: unknown[], usage?: unknown): void {
    const chunk: Record<string, unknown> = {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.request.model,
      system_fingerprint: 'fixture',
      choices,
    };
    if (this.includeUsage) chunk['usage'] = usage ?? null;
    this.raw(`data: ${JSON.stringify(chunk)}\n\n`);
  }
}

async function streamPieces(
  stream: ChunkWriter,
  life: ResponseLife,
  parts: string[],
  delayMs: number | undefined,
  intervalMs: number | undefined,
): Promise<void> {
  if (delayMs) await life.wait(delayMs);
  for (const [i, part] of parts.entries()) {
    if (i > 0 && intervalMs) await life.wait(intervalMs);
    if (life.aborted) return;
    stream.content(part);
  }
}

function usageJson(
  request: FixtureRequest,
  completionPieces: number,
  usage: FixtureUsage | undefined,
): unknown {
  const prompt = usage?.promptTokens ?? Math.ceil(JSON.stringify(request.messages).length / 4);
  const completion = usage?.completionTokens ?? completionPieces;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** A string becomes word-sized pieces (each word with the white space after it); an array is kept as given. */
export function pieces(text: string | string[]): string[] {
  if (Array.isArray(text)) return text;
  return text.match(/\s*\S+\s*/g) ?? (text.length > 0 ? [text] : []);
}

function split(text: string, count: number): string[] {
  if (text.length === 0) return [''];
  const size = Math.max(1, Math.ceil(text.length / count));
  const parts: string[] = [];
  for (let at = 0; at < text.length; at += size) parts.push(text.slice(at, at + size));
  return parts;
}

function argumentsText(call: FixtureToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

function newCallId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseRequest(text: string, headers: IncomingHttpHeaders, index: number): FixtureRequest {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new FixtureHttpError(400, 'fixture: the body is not valid JSON', 'invalid_request_error');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new FixtureHttpError(400, 'fixture: the body must be a JSON object', 'invalid_request_error');
  }
  const record = body as Record<string, unknown>;
  if (!Array.isArray(record['messages'])) {
    throw new FixtureHttpError(400, 'fixture: "messages" must be an array', 'invalid_request_error');
  }
  return {
    index,
    model: typeof record['model'] === 'string' ? record['model'] : '',
    messages: record['messages'] as FixtureMessage[],
    tools: Array.isArray(record['tools']) ? (record['tools'] as FixtureTool[]) : undefined,
    stream: record['stream'] === true,
    body: record,
    headers,
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, message: string, type: string): void {
  sendJson(res, status, { error: { message, type, param: null, code: null } });
}
