import { replyWithProblem, type ToolCatalogue } from '@assistant/server-kit';
import { requestsOf, sendJsonRpcError, type McpExchange, type McpServerOf } from './mcp-exchange';
import type { McpSdk } from './mcp-sdk';
import { belongsTo, type McpSession, type McpSessionStore } from './mcp-sessions';
import { sendWebResponse } from './web-exchange';

/** JSON-RPC's "Invalid Request". */
const INVALID_REQUEST = -32600;
/** An event stream says something this often, so that proxies and the idle timeout keep it; and asks whether its session still lives. */
const KEEP_ALIVE_MS = 15_000;
const LIST_CHANGED_FRAME = `event: message\ndata: ${JSON.stringify({
  jsonrpc: '2.0',
  method: 'notifications/tools/list_changed',
})}\n\n`;

export interface LegacySessionsDeps {
  sdk: McpSdk;
  sessions: McpSessionStore;
  catalog: ToolCatalogue;
  serverOf: McpServerOf;
  /** How long a request id stays in flight at most: longer than any tool call may take. */
  requestLifetimeMs: number;
}

/**
 * The 2025 revisions (2024-11-05 to 2025-11-25): a client opens a session with `initialize` and names it in
 * `Mcp-Session-Id` on every later request. The session is a record in the session store (Redis on the hosted
 * service), so any instance serves any of its requests, each with a fresh server from the SDK's stateless
 * transport, and the GET event stream that carries `list_changed` may be held by any instance. Nothing of a
 * session stays in the process that opened it.
 */
export class LegacySessions {
  /** The event streams held here, by session: a client's new stream replaces its old one. */
  private readonly streams = new Map<string, () => void>();

  constructor(private readonly deps: LegacySessionsDeps) {}

  async serve(exchange: McpExchange): Promise<unknown> {
    const method = exchange.request.method;
    if (method === 'POST' && this.opensSession(exchange.body)) return this.open(exchange);
    const id = exchange.request.headers['mcp-session-id'];
    if (typeof id !== 'string') {
      if (method === 'POST') return this.answer(exchange);
      // GET (the event stream) and DELETE name a session.
      return replyWithProblem(exchange.request, exchange.reply, {
        code: 'method_not_allowed',
        detail: `${method} needs the Mcp-Session-Id of a session opened with initialize`,
        headers: { allow: 'POST' },
      });
    }
    const session = await this.deps.sessions.use(id);
    if (!session || !belongsTo(session, exchange.principal)) {
      // Unknown, ended, expired, or another caller's (which must not learn that it exists): start a new one.
      return replyWithProblem(exchange.request, exchange.reply, {
        code: 'not_found',
        detail: 'no MCP session with this id; open a new one with initialize',
      });
    }
    if (method === 'GET') return this.listen(exchange, session);
    if (method === 'DELETE') return this.end(exchange, session);
    return this.answerInSession(exchange, session);
  }

  private opensSession(body: unknown): boolean {
    return requestsOf(body).some((message) => this.deps.sdk.isInitializeRequest(message));
  }

  /** `initialize`: a new session, named in the answer's `Mcp-Session-Id` once the SDK accepted the handshake. */
  private async open(exchange: McpExchange): Promise<void> {
    const session = await this.deps.sessions.open(exchange.principal);
    const response = await this.sdkAnswer(exchange);
    if (!response.ok) {
      await this.deps.sessions.end(session.id);
      return sendWebResponse(exchange.reply, response);
    }
    return sendWebResponse(exchange.reply, response, { 'mcp-session-id': session.id });
  }

  /** A request of a client without a session: answered statelessly, as the SDK answers it. */
  private async answer(exchange: McpExchange): Promise<void> {
    return sendWebResponse(exchange.reply, await this.sdkAnswer(exchange));
  }

  /**
   * A request of a session. Its id must not be in flight in the session already: the answer to one would have
   * nowhere to go, and the other would wait for ever (-32600). Ids are free again once answered.
   */
  private async answerInSession(exchange: McpExchange, session: McpSession): Promise<unknown> {
    const ids = requestsOf(exchange.body).map((message) => message.id);
    const claimed: Array<string | number> = [];
    const release = () =>
      Promise.all(claimed.map((requestId) => this.deps.sessions.releaseRequest(session.id, requestId)));
    for (const requestId of ids) {
      const free =
        !claimed.includes(requestId) &&
        (await this.deps.sessions.claimRequest(session.id, requestId, this.deps.requestLifetimeMs));
      if (!free) {
        await release();
        return sendJsonRpcError(
          exchange.reply,
          400,
          requestId,
          INVALID_REQUEST,
          `request id ${JSON.stringify(requestId)} is already in flight in this session; give each request a new id`,
        );
      }
      claimed.push(requestId);
    }
    try {
      await sendWebResponse(exchange.reply, await this.sdkAnswer(exchange));
    } finally {
      await release();
    }
  }

  /** The SDK's stateless 2025 transport, with a fresh server of the caller, answers the request. */
  private sdkAnswer(exchange: McpExchange): Promise<Response> {
    const answer = this.deps.sdk.legacyStatelessFallback(() => this.deps.serverOf(exchange.principal));
    return answer(exchange.web, exchange.body === undefined ? {} : { parsedBody: exchange.body });
  }

  /**
   * The session's event stream (GET): `notifications/tools/list_changed` whenever the account's tools change,
   * wherever the change was made (the tool catalogue hears the other instances). It ends when the client leaves,
   * the server shuts down, or the session ends (on any instance: asked at each keep-alive).
   */
  private async listen(exchange: McpExchange, session: McpSession): Promise<void> {
    this.streams.get(session.id)?.();
    const { reply, web } = exchange;
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    raw.flushHeaders();
    const write = (frame: string) => {
      if (!raw.destroyed && !raw.writableEnded) raw.write(frame);
    };
    await new Promise<void>((resolve) => {
      let closed = false;
      const close = () => {
        if (closed) return;
        closed = true;
        if (this.streams.get(session.id) === close) this.streams.delete(session.id);
        stopListening();
        clearInterval(keepAlive);
        web.signal.removeEventListener('abort', close);
        raw.end();
        resolve();
      };
      const stopListening = this.deps.catalog.onChange(session.userId, () => write(LIST_CHANGED_FRAME));
      const keepAlive = setInterval(() => {
        write(': keepalive\n\n');
        this.deps.sessions.alive(session.id).then(
          (alive) => alive || close(),
          () => undefined, // Redis unreachable for a moment: the stream goes on.
        );
      }, KEEP_ALIVE_MS);
      this.streams.set(session.id, close);
      if (web.signal.aborted) close();
      else web.signal.addEventListener('abort', close, { once: true });
    });
  }

  /** DELETE: the client ends its session; its event stream here ends too (elsewhere, at its next keep-alive). */
  private async end(exchange: McpExchange, session: McpSession): Promise<unknown> {
    await this.deps.sessions.end(session.id);
    this.streams.get(session.id)?.();
    return exchange.reply.status(200).send();
  }
}
