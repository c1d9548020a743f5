import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { systemErrorCode } from '@assistant/client';
import {
  ErrorCode,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type InitializeResult,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

export interface RelayLogger {
  /** A line that matters to whoever reads the MCP client's log: connection lost, back again, token refused. */
  info(line: string): void;
  /** Details, shown with --verbose. */
  debug(line: string): void;
}

export interface RelayOptions {
  /** The server, as in messages: `http://127.0.0.1:7747`. */
  baseUrl: string;
  /** `<base>/api/v1/mcp`. */
  endpoint: URL;
  token: string;
  userAgent: string;
  /** The MCP client's side: a StdioServerTransport on stdin/stdout. */
  downstream: Transport;
  logger: RelayLogger;
  fetch?: FetchLike | undefined;
  /** How long a message from the client waits for the server to come back before it is answered with an error. */
  waitForServerMs?: number | undefined;
  /** Reconnection backoff: the first delay, doubled up to the last. */
  retryDelayMs?: { first: number; max: number } | undefined;
  /** Called when the relay cannot go on (the server refused the token): one line for stderr and the exit status. */
  onFatal(line: string): void;
}

/** An MCP session with the server: one StreamableHTTPClientTransport and its `Mcp-Session-Id`. */
interface Session {
  readonly number: number;
  readonly transport: StreamableHTTPClientTransport;
  dead: boolean;
}

/** A request of the launcher's own (the initialize that opens a new session after a restart). */
interface InternalRequest {
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
}

class WaitedTooLongError extends Error {
  override name = 'WaitedTooLongError';
}

const INTERNAL_ID_PREFIX = 'assistant-mcp/';

/**
 * Relays JSON-RPC messages between an MCP client (the downstream transport, stdio) and the server's Streamable HTTP
 * endpoint, at the transport level: whatever the server offers (tools/list, tools/call, notifications, requests of
 * its own) goes through unchanged.
 *
 * The session with the server is the launcher's business, not the client's: when the server restarts (404 for the
 * session, or the connection drops) the relay opens a new session by replaying the client's own `initialize`, tells
 * the client `notifications/tools/list_changed` (the tools may have changed), and carries on. A request that the
 * server never received (refused connection, unknown session) is sent again on the new session; one that was
 * in flight when the connection broke is answered with an error, since it may have run.
 */
export class Relay {
  private readonly endpoint: URL;
  private readonly options: RelayOptions;
  private readonly logger: RelayLogger;
  private readonly waitForServerMs: number;
  private readonly retryDelay: { first: number; max: number };

  /** The client's `initialize` request, replayed to open each new session. */
  private initialize: JSONRPCRequest | undefined;
  private serverSaysToolsChange = false;
  private session: Session | undefined;
  private sessions = 0;
  private reconnecting: Promise<Session> | undefined;
  /**
   * Client requests sent to the server and not answered yet, with the session that carries them; `accepted` once the
   * server took the POST (before that, a failure is the sender's to handle: it may send the request again).
   */
  private readonly pending = new Map<RequestId, { session: Session; accepted: boolean }>();
  private readonly internal = new Map<RequestId, InternalRequest>();
  private internalIds = 0;
  private closed = false;
  private refused = false;
  private lostLogged = false;

  constructor(options: RelayOptions) {
    this.options = options;
    this.endpoint = options.endpoint;
    this.logger = options.logger;
    this.waitForServerMs = options.waitForServerMs ?? 10_000;
    this.retryDelay = options.retryDelayMs ?? { first: 250, max: 5_000 };
  }

  async start(): Promise<void> {
    const downstream = this.options.downstream;
    downstream.onmessage = (message) => void this.fromClient(message);
    downstream.onerror = (error) =>
      this.logger.info(`a message from the MCP client was not JSON-RPC: ${error.message}`);
    await downstream.start();
  }

  /** Ends the session with the server (DELETE, best effort) and stops relaying. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const session = this.session;
    this.session = undefined;
    if (session && !session.dead) {
      session.dead = true;
      await Promise.race([
        session.transport.terminateSession().catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, 2_000).unref()),
      ]);
      await this.closeTransport(session);
    }
    for (const request of this.internal.values()) request.reject(new Error('the launcher is closing'));
  }

  // ---- client → server --------------------------------------------------------------------------------------

  private async fromClient(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    if (isJSONRPCRequest(message) && message.method === 'initialize') return this.startSession(message);
    if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
      const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (requestId !== undefined) this.pending.delete(requestId);
    }
    if (!this.initialize) {
      // Nothing to relay to before the client has initialized: say so instead of opening a session for it.
      if (isJSONRPCRequest(message)) {
        await this.reply(message.id, ErrorCode.InvalidRequest, 'the first request must be initialize');
      }
      return;
    }
    await this.relay(message);
  }

  /** The client's `initialize`: a new session, on which the client's request (and its answer) goes through as is. */
  private async startSession(message: JSONRPCRequest): Promise<void> {
    this.initialize = message;
    const previous = this.session;
    this.session = undefined;
    if (previous) this.dropSession(previous, 'the MCP client initialized again');
    const session = this.newSession();
    this.session = session;
    this.pending.set(message.id, { session, accepted: false });
    try {
      await session.transport.send(message);
      this.accepted(message.id, session);
    } catch (error) {
      this.pending.delete(message.id);
      this.dropSession(session, describe(error));
      if (isUnauthorized(error)) {
        await this.reply(message.id, ErrorCode.ConnectionClosed, this.refusedLine());
        return this.tokenRefused();
      }
      await this.reply(message.id, ErrorCode.ConnectionClosed, this.failure(error));
    }
  }

  /** Sends a message on the current session, opening a new one when the server lost the old one. */
  private async relay(message: JSONRPCMessage): Promise<void> {
    const id = isJSONRPCRequest(message) ? message.id : undefined;
    for (let attempt = 0; ; attempt++) {
      let session: Session;
      try {
        session = await this.currentSession();
      } catch (error) {
        if (id !== undefined) await this.reply(id, ErrorCode.ConnectionClosed, this.failure(error));
        else this.logger.debug(`dropped ${describeMessage(message)}: ${describe(error)}`);
        return;
      }
      if (id !== undefined) this.pending.set(id, { session, accepted: false });
      try {
        await session.transport.send(message);
        if (id !== undefined) this.accepted(id, session);
        return;
      } catch (error) {
        if (id !== undefined && this.pending.get(id)?.session === session) this.pending.delete(id);
        else if (id !== undefined) return; // already answered
        if (isUnauthorized(error)) {
          if (id !== undefined) await this.reply(id, ErrorCode.ConnectionClosed, this.refusedLine());
          return this.tokenRefused();
        }
        // The server forgot the session, or the connection failed: it restarted or went away, so this session is
        // over. A message it never received is sent again on a new one; so is a notification (harmless twice),
        // but not a request that may have run.
        const notReceived = isSessionLost(error) || isNotConnected(error);
        const broken = notReceived || systemErrorCode(error) !== undefined;
        if (broken) this.dropSession(session, describe(error));
        if (broken && (notReceived || id === undefined) && attempt === 0 && !this.closed) {
          this.logger.debug(`sending ${describeMessage(message)} again on a new session: ${describe(error)}`);
          continue;
        }
        if (id !== undefined) await this.reply(id, ErrorCode.ConnectionClosed, this.failure(error));
        else this.logger.debug(`dropped ${describeMessage(message)}: ${describe(error)}`);
        return;
      }
    }
  }

  /** The live session, or a new one once the server answers again (waiting at most waitForServerMs). */
  private async currentSession(): Promise<Session> {
    if (this.session && !this.session.dead) return this.session;
    const reconnecting = this.reconnect();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new WaitedTooLongError(`no answer within ${this.waitForServerMs / 1000} s`)),
        this.waitForServerMs,
      );
    });
    try {
      return await Promise.race([reconnecting, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private accepted(id: RequestId, session: Session): void {
    const entry = this.pending.get(id);
    if (entry?.session === session) entry.accepted = true;
  }

  // ---- sessions -----------------------------------------------------------------------------------------------

  private newSession(): Session {
    const number = ++this.sessions;
    // The transport's fetch needs the session, and the session its transport.
    const session = { number, dead: false } as { -readonly [K in keyof Session]: Session[K] };
    const transport = new StreamableHTTPClientTransport(this.endpoint, {
      requestInit: {
        headers: { Authorization: `Bearer ${this.options.token}`, 'User-Agent': this.options.userAgent },
      },
      fetch: (url, init) => this.watchedFetch(session, url, init),
      // The standalone GET stream (server notifications such as tools/list_changed) is reopened after a drop;
      // when that fails because the server is gone or forgot the session, watchedFetch takes over.
      reconnectionOptions: {
        initialReconnectionDelay: 500,
        maxReconnectionDelay: 5_000,
        reconnectionDelayGrowFactor: 2,
        maxRetries: 2,
      },
    });
    session.transport = transport;
    transport.onmessage = (message) => void this.fromServer(session, message);
    transport.onerror = (error) => {
      if (!session.dead) this.logger.debug(`session ${number}: ${error.message}`);
    };
    // start() only arms the transport; it sends nothing.
    void transport.start();
    return session;
  }

  /**
   * A session that the server does not know (any more) or cannot be reached through: forget it, answer the
   * requests it carried, and (unless closing) open a new one in the background so that server notifications keep
   * coming.
   */
  private dropSession(session: Session, reason: string): void {
    if (session.dead) return;
    session.dead = true;
    if (this.session === session) this.session = undefined;
    this.logger.debug(`session ${session.number} ended: ${reason}`);
    for (const [id, { session: carrier, accepted }] of [...this.pending]) {
      if (carrier !== session || !accepted) continue;
      this.pending.delete(id);
      void this.reply(id, ErrorCode.ConnectionClosed, this.broke(reason));
    }
    void this.closeTransport(session);
    if (!this.closed && this.initialize) {
      this.reconnect().catch(() => undefined);
    }
  }

  /** Ends the GET stream and any reconnection of it; POSTs still under way finish (see watchedFetch). */
  private async closeTransport(session: Session): Promise<void> {
    session.transport.onclose = undefined;
    await session.transport.close().catch(() => undefined);
  }

  /** Opens a new session (single flight), retrying with backoff until the server answers or the relay closes. */
  private reconnect(): Promise<Session> {
    if (this.reconnecting) return this.reconnecting;
    const attempt = async (): Promise<Session> => {
      let delay = this.retryDelay.first;
      for (;;) {
        if (this.closed) throw new Error('the launcher is closing');
        try {
          const session = await this.openSession();
          if (this.lostLogged) this.logger.info(`reconnected to ${this.origin()}`);
          this.lostLogged = false;
          return session;
        } catch (error) {
          if (isUnauthorized(error)) {
            this.tokenRefused();
            throw error;
          }
          if (!this.lostLogged) {
            this.logger.info(`lost the server at ${this.origin()} (${describe(error)}); reconnecting`);
            this.lostLogged = true;
          } else {
            this.logger.debug(`still no server at ${this.origin()}: ${describe(error)}`);
          }
          await sleep(delay);
          delay = Math.min(delay * 2, this.retryDelay.max);
        }
      }
    };
    const reconnecting = attempt().finally(() => {
      if (this.reconnecting === reconnecting) this.reconnecting = undefined;
    });
    this.reconnecting = reconnecting;
    return reconnecting;
  }

  /** A new session opened with the client's own initialize (answered here, not relayed), then `initialized`. */
  private async openSession(): Promise<Session> {
    const initialize = this.initialize!;
    const session = this.newSession();
    try {
      const id = `${INTERNAL_ID_PREFIX}${++this.internalIds}`;
      const answered = new Promise<Record<string, unknown>>((resolve, reject) => {
        this.internal.set(id, { resolve, reject });
      });
      const timeout = setTimeout(
        () => this.internal.get(id)?.reject(new Error('the server did not answer initialize')),
        this.waitForServerMs,
      );
      try {
        await session.transport.send({ ...initialize, id });
        const result = (await answered) as InitializeResult;
        if (typeof result.protocolVersion === 'string') {
          session.transport.setProtocolVersion(result.protocolVersion);
        }
      } finally {
        clearTimeout(timeout);
        this.internal.delete(id);
      }
      await session.transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    } catch (error) {
      session.dead = true;
      await this.closeTransport(session);
      throw error;
    }
    if (this.closed) {
      session.dead = true;
      await this.closeTransport(session);
      throw new Error('the launcher is closing');
    }
    this.session = session;
    this.logger.debug(`session ${session.number} opened`);
    // The server restarted, so its tools may have changed: let the client list them again.
    if (this.serverSaysToolsChange) {
      await this.toClient({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    }
    return session;
  }

  /**
   * Every request the transport makes goes through here, so that the relay sees what the SDK's own handling of the
   * standalone GET stream hides: the server gone (connection refused), the session forgotten (404), the token
   * revoked (401). A broken POST stream answers the requests it carried.
   */
  private async watchedFetch(session: Session, url: string | URL, init?: RequestInit): Promise<Response> {
    const method = (init?.method ?? 'GET').toUpperCase();
    // A POST is not cut short when its session is dropped: the server may have taken it, and its answer (or its
    // 404, upon which it is sent again) still belongs to the client. Only the GET stream ends with the session.
    if (method === 'POST') init = { ...init, signal: null };
    let response: Response;
    try {
      response = await (this.options.fetch ?? fetch)(url, init);
    } catch (error) {
      if (method === 'GET' && !session.dead && !init?.signal?.aborted)
        this.dropSession(session, describe(error));
      throw error;
    }
    if (session.dead || method !== 'GET') {
      return method === 'POST' ? this.watchPostStream(session, response, init) : response;
    }
    if (response.status === 401) {
      this.tokenRefused();
    } else if (response.status === 404 && hasSessionId(init)) {
      this.dropSession(session, 'the server no longer knows the session (404)');
    }
    return response;
  }

  /** When the SSE stream of a POST breaks, its requests will not be answered: answer them with an error. */
  private watchPostStream(session: Session, response: Response, init: RequestInit | undefined): Response {
    const type = response.headers.get('content-type') ?? '';
    if (!response.ok || !response.body || !type.includes('text/event-stream')) return response;
    const ids = requestIdsOf(init?.body);
    if (ids.length === 0) return response;
    const [forTransport, forWatch] = response.body.tee();
    void (async () => {
      const reader = forWatch.getReader();
      try {
        for (;;) if ((await reader.read()).done) return;
      } catch (error) {
        if (this.closed) return;
        // Give the transport a moment to deliver what it parsed before the break.
        await sleep(50);
        for (const id of ids) {
          if (this.pending.get(id)?.session !== session) continue;
          this.pending.delete(id);
          await this.reply(id, ErrorCode.ConnectionClosed, this.broke(describe(error)));
        }
      }
    })();
    return new Response(forTransport, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }

  /** The token was revoked: nothing will work any more. Answer what is pending, then stop with one line. */
  private tokenRefused(): void {
    if (this.closed || this.refused) return;
    this.refused = true;
    const line = this.refusedLine();
    const answers = [...this.pending.keys()].map((id) => this.reply(id, ErrorCode.ConnectionClosed, line));
    this.pending.clear();
    void Promise.all(answers).then(() => this.options.onFatal(line));
  }

  private refusedLine(): string {
    return `the server at ${this.origin()} refused the token (401); create a new one on /profile`;
  }

  // ---- server → client --------------------------------------------------------------------------------------

  private async fromServer(session: Session, message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    const isResponse = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);
    // A dropped session may still answer the requests it took; nothing else of it goes to the client.
    if (session.dead && !isResponse) return;
    if (isResponse) {
      const id = message.id;
      if (id === undefined) return;
      const internal = this.internal.get(id);
      if (internal) {
        if (isJSONRPCResultResponse(message)) internal.resolve(message.result as Record<string, unknown>);
        else internal.reject(new Error(`initialize failed: ${message.error.message}`));
        return;
      }
      if (this.pending.get(id)?.session !== session) {
        this.logger.debug(`dropped an answer to ${String(id)}, which the client no longer waits for`);
        return;
      }
      this.pending.delete(id);
      if (isJSONRPCResultResponse(message) && this.initialize && id === this.initialize.id) {
        this.noteInitializeResult(session, message.result as InitializeResult);
      }
    }
    await this.toClient(message);
  }

  private noteInitializeResult(session: Session, result: InitializeResult): void {
    if (typeof result.protocolVersion === 'string')
      session.transport.setProtocolVersion(result.protocolVersion);
    this.serverSaysToolsChange = result.capabilities?.tools?.listChanged === true;
    this.logger.debug(
      `session ${session.number} opened with ${result.serverInfo?.name ?? 'the server'} (protocol ${result.protocolVersion})`,
    );
  }

  private async reply(id: RequestId, code: number, message: string): Promise<void> {
    await this.toClient({ jsonrpc: '2.0', id, error: { code, message } });
  }

  private async toClient(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    try {
      await this.options.downstream.send(message);
    } catch (error) {
      this.logger.debug(`could not write to the MCP client: ${describe(error)}`);
    }
  }

  /** The error message for a request that could not be relayed. */
  private failure(error: unknown): string {
    if (error instanceof StreamableHTTPError && (error.code === 404 || error.code === 405)) {
      return `the server at ${this.origin()} has no MCP endpoint at ${this.endpoint.pathname} (HTTP ${error.code}); update it`;
    }
    if (error instanceof StreamableHTTPError) {
      return `the server at ${this.origin()} refused the request: ${error.message}`;
    }
    if (isNotConnected(error) || error instanceof WaitedTooLongError) {
      return `no server answers at ${this.origin()} (${describe(error)}); the launcher keeps trying`;
    }
    return this.broke(describe(error));
  }

  private broke(reason: string): string {
    return `the connection to the server at ${this.origin()} broke before it answered (${reason}); try again`;
  }

  private origin(): string {
    return this.options.baseUrl;
  }
}

// ---- helpers --------------------------------------------------------------------------------------------------

/** The server answered 404 to a request that named a session: it restarted or expired the session. */
function isSessionLost(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code === 404;
}

function isUnauthorized(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code === 401;
}

/** Errors where the request never reached the server (so sending it again cannot run it twice). */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function isNotConnected(error: unknown): boolean {
  const code = systemErrorCode(error);
  return code !== undefined && NOT_CONNECTED.has(code);
}

function describe(error: unknown): string {
  const code = systemErrorCode(error);
  if (code) return code;
  if (error instanceof StreamableHTTPError && error.code !== undefined) return `HTTP ${error.code}`;
  return error instanceof Error ? error.message : String(error);
}

function describeMessage(message: JSONRPCMessage): string {
  return 'method' in message ? message.method : 'a response';
}

function hasSessionId(init: RequestInit | undefined): boolean {
  return new Headers(init?.headers).has('mcp-session-id');
}

function requestIdsOf(body: RequestInit['body']): RequestId[] {
  if (typeof body !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(body);
    return (Array.isArray(parsed) ? parsed : [parsed])
      .filter((message) => isJSONRPCRequest(message))
      .map((message) => message.id);
  } catch {
    return [];
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
