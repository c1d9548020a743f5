import type { Problem } from '@assistant/contracts';
import { ERROR_CODES, type ErrorCode } from '@assistant/contracts/wire';
import type { HttpResponse } from './http-exchange';
import { contractSchemas } from './schemas';

/** What an error reads of a response: a fetch Response will do. */
type FailedResponse = Pick<HttpResponse, 'status' | 'statusText' | 'headers' | 'text'>;

/** The base of every error this package throws, so that a caller can tell them from its own. */
export class AssistantClientError extends Error {
  override name = 'AssistantClientError';
}

/**
 * The server answered with a status outside 2xx (SPEC §5). `problem` is the RFC 9457 body the server
 * sent; when the body was not a problem (a proxy's HTML page, say) one is made up from the status, and
 * `problemFromServer` is false.
 */
export class ApiRequestError extends AssistantClientError {
  override name = 'ApiRequestError';
  readonly status: number;
  readonly problem: Problem;
  readonly problemFromServer: boolean;
  readonly method: string;
  readonly url: string;
  /** The scope a 403 asked for (`WWW-Authenticate: … scope="…"`), when the server said. */
  readonly requiredScope: string | undefined;
  /** Seconds to wait before trying again (`Retry-After`), when the server said. */
  readonly retryAfter: number | undefined;

  constructor(init: {
    method: string;
    url: string;
    status: number;
    problem: Problem;
    problemFromServer: boolean;
    requiredScope?: string | undefined;
    retryAfter?: number | undefined;
  }) {
    super(
      `${init.method} ${pathOf(init.url)} failed with ${init.status} ${init.problem.code}: ${init.problem.detail}`,
    );
    this.method = init.method;
    this.url = init.url;
    this.status = init.status;
    this.problem = init.problem;
    this.problemFromServer = init.problemFromServer;
    this.requiredScope = init.requiredScope;
    this.retryAfter = init.retryAfter;
  }

  /** The stable error code (SPEC §5): `invalid_token`, `insufficient_scope`, `validation_failed`, … */
  get code(): ErrorCode {
    return this.problem.code;
  }

  get detail(): string {
    return this.problem.detail;
  }

  get requestId(): string {
    return this.problem.request_id;
  }

  /** Builds the error from a non-2xx response, reading its body. */
  static async fromResponse(method: string, url: string, response: FailedResponse): Promise<ApiRequestError> {
    let text = '';
    try {
      text = await response.text();
    } catch {
      // The body could not be read: the status alone has to do.
    }
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const parsed = contractSchemas().problemSchema.safeParse(body);
    const problem: Problem = parsed.success ? (body as Problem) : synthesizedProblem(response, body, text);
    return new ApiRequestError({
      method,
      url,
      status: response.status,
      problem,
      problemFromServer: parsed.success,
      requiredScope: scopeFromChallenge(response.headers.get('www-authenticate')),
      retryAfter: retryAfterSeconds(response.headers.get('retry-after')),
    });
  }
}

/**
 * The server could not be reached, or the connection broke before a reply came: refused, reset, unknown
 * host, TLS failure. `url` is the address that was called; `reason` the system's error code when known
 * (`ECONNREFUSED`, `ENOTFOUND`, …).
 */
export class ConnectionError extends AssistantClientError {
  override name = 'ConnectionError';
  readonly url: string;
  readonly method: string;
  readonly reason: string | undefined;

  constructor(method: string, url: string, cause: unknown) {
    const reason = systemErrorCode(cause);
    const what = reason ?? describeCause(cause);
    super(`cannot reach ${url}${what ? ` (${what})` : ''}`, { cause });
    this.method = method;
    this.url = url;
    this.reason = reason;
  }
}

/**
 * A query stream broke and could not be resumed: the connection dropped before the server said which
 * query it had started, or every reconnection attempt failed. The run itself goes on on the server;
 * `queryId` and `lastEventId` (when known) let a caller attach again later with `queries.events`.
 */
export class StreamInterruptedError extends AssistantClientError {
  override name = 'StreamInterruptedError';
  readonly queryId: string | undefined;
  readonly lastEventId: number;
  readonly attempts: number;

  constructor(init: { queryId: string | undefined; lastEventId: number; attempts: number; cause: unknown }) {
    const cause = init.cause instanceof Error ? `: ${init.cause.message}` : '';
    super(
      init.queryId
        ? `the stream of query ${init.queryId} broke after event ${init.lastEventId} and ${init.attempts} attempt(s) to resume failed${cause}`
        : `the stream broke before the server said which query it started${cause}`,
      { cause: init.cause },
    );
    this.queryId = init.queryId;
    this.lastEventId = init.lastEventId;
    this.attempts = init.attempts;
  }
}

/** The server said something this client does not understand: a body or an event off the contract. */
export class ProtocolError extends AssistantClientError {
  override name = 'ProtocolError';
  readonly url: string;

  constructor(url: string, message: string) {
    super(`unexpected reply from ${url}: ${message}`);
    this.url = url;
  }
}

function pathOf(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.pathname + parsed.search;
  } catch {
    return url;
  }
}

const STATUS_CODES: Record<number, ErrorCode> = Object.fromEntries(
  (Object.entries(ERROR_CODES) as [ErrorCode, { status: number }][])
    .filter(([code]) => code !== 'tool_unavailable' && code !== 'model_unavailable')
    .map(([code, { status }]) => [status, code]),
);

function synthesizedProblem(response: FailedResponse, body: unknown, text: string): Problem {
  const status = response.status;
  const code: ErrorCode = STATUS_CODES[status] ?? (status >= 500 ? 'internal' : 'validation_failed');
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const detail =
    stringField(fields, 'detail') ??
    stringField(fields, 'error_description') ??
    stringField(fields, 'message') ??
    (text && !text.trimStart().startsWith('<') ? text.trim().slice(0, 300) : undefined) ??
    `the server answered ${status}${response.statusText ? ` ${response.statusText}` : ''}`;
  return {
    type: 'about:blank',
    title: stringField(fields, 'title') ?? (response.statusText || `HTTP ${status}`),
    status,
    code,
    detail,
    request_id: stringField(fields, 'request_id') ?? response.headers.get('x-request-id') ?? '',
  };
}

function stringField(fields: Record<string, unknown>, name: string): string | undefined {
  const value = fields[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function scopeFromChallenge(header: string | null): string | undefined {
  const match = header ? /\bscope="([^"]*)"/.exec(header) : null;
  return match?.[1] || undefined;
}

function retryAfterSeconds(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** `ECONNREFUSED` and friends, from undici's `TypeError('fetch failed', { cause })` (or an AggregateError inside). */
export function systemErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (typeof current !== 'object') return undefined;
    const candidate = current as { code?: unknown; errors?: unknown; cause?: unknown };
    if (typeof candidate.code === 'string' && /^E[A-Z0-9_]+$|^UND_ERR/.test(candidate.code)) {
      return candidate.code;
    }
    if (Array.isArray(candidate.errors) && candidate.errors.length > 0) {
      const inner = systemErrorCode(candidate.errors[0]);
      if (inner) return inner;
    }
    current = candidate.cause;
  }
  return undefined;
}

function describeCause(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const inner = error.cause instanceof Error ? error.cause.message : undefined;
  return inner || (error.message !== 'fetch failed' ? error.message : undefined);
}
