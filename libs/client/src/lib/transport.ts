import { API_PREFIX } from '@assistant/contracts/wire';
import { ApiRequestError, ConnectionError, ProtocolError } from './errors';
import { sendWithFetch, type HttpResponse, type SendRequest } from './http-exchange';
import { sendWithNodeHttp } from './node-http';

/** What the client needs of a zod schema (it checks replies with the schemas of @assistant/contracts). */
export interface ResponseSchema<T> {
  safeParse(value: unknown):
    | { success: true; data: T }
    | {
        success: false;
        error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> };
      };
}

export type QueryValue = string | number | boolean | undefined | null;

export interface TransportOptions {
  /** The server, e.g. `http://127.0.0.1:7747` (a trailing `/api/v1` is accepted and dropped). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`. Optional only for the few calls that need none. */
  token?: string | undefined;
  /** How requests are sent. Default: node:http(s) (see sendWithNodeHttp). */
  fetch?: typeof globalThis.fetch | undefined;
  /** Default `assistant-client`. */
  userAgent?: string | undefined;
  /** Extra headers on every request. */
  headers?: Record<string, string> | undefined;
  /**
   * Check every JSON reply and every event against the contract's schemas (default true; a mismatch is a
   * ProtocolError). false also spares loading the schemas (zod), ~60 ms of CPU.
   */
  validateResponses?: boolean | undefined;
}

export interface OpenOptions {
  query?: Record<string, QueryValue> | undefined;
  body?: unknown;
  headers?: Record<string, string> | undefined;
  accept?: string | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * `http://host:port`, `http://host:port/`, `http://host:port/api/v1` → `http://host:port`; a path
 * prefix (a server behind a reverse proxy at `/assistant`) is kept. Throws a TypeError for anything
 * that is not an http(s) URL.
 */
export function normalizeBaseUrl(baseUrl: string): string {
  let parsed: URL;
  try {
    parsed = new URL(baseUrl.trim());
  } catch {
    throw new TypeError(`not a URL: "${baseUrl}" (expected something like http://127.0.0.1:7747)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`not an http(s) URL: "${baseUrl}"`);
  }
  if (parsed.username || parsed.password) {
    throw new TypeError('the server URL must not contain a user name or password; give the token instead');
  }
  let path = parsed.pathname.replace(/\/+$/, '');
  if (path.endsWith(API_PREFIX)) path = path.slice(0, -API_PREFIX.length);
  return `${parsed.origin}${path}`;
}

/** One place where requests are made: auth header, JSON, and the mapping of failures to this package's errors. */
export class Transport {
  readonly baseUrl: string;
  private readonly token: string | undefined;
  private readonly send: SendRequest;
  private readonly defaultHeaders: Record<string, string>;
  readonly validateResponses: boolean;

  constructor(options: TransportOptions) {
    this.baseUrl = normalizeBaseUrl(options.baseUrl);
    if (options.token !== undefined && !/^[\x21-\x7e]+$/.test(options.token)) {
      // Checked here so that a pasted token with a newline fails clearly instead of deep inside fetch.
      throw new TypeError('the API token must be one word of printable ASCII characters');
    }
    this.token = options.token;
    if (options.fetch !== undefined && typeof options.fetch !== 'function') {
      throw new TypeError('fetch must be a function');
    }
    this.send = options.fetch ? sendWithFetch(options.fetch) : sendWithNodeHttp;
    this.defaultHeaders = {
      'user-agent': options.userAgent ?? 'assistant-client',
      ...lowerCaseKeys(options.headers ?? {}),
    };
    this.validateResponses = options.validateResponses ?? true;
  }

  /** `path` is where the server serves it, e.g. `/api/v1/memories` (see operationPath). */
  url(path: string, query?: Record<string, QueryValue>): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) search.set(name, String(value));
    }
    const qs = search.toString();
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ''}`;
  }

  /**
   * Sends a request and returns the response once its status is 2xx. A failure to connect becomes a
   * ConnectionError, another status an ApiRequestError; an abort rethrows the signal's reason.
   */
  async open(method: string, path: string, options: OpenOptions = {}): Promise<HttpResponse> {
    const url = this.url(path, options.query);
    const headers: Record<string, string> = {
      ...this.defaultHeaders,
      accept: options.accept ?? 'application/json',
      ...lowerCaseKeys(options.headers ?? {}),
    };
    if (this.token !== undefined) headers['authorization'] = `Bearer ${this.token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    let response: HttpResponse;
    try {
      response = await this.send({ method, url, headers, body, signal: options.signal });
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      throw new ConnectionError(method, url, error);
    }
    if (!response.ok) {
      throw await ApiRequestError.fromResponse(method, url, response);
    }
    return response;
  }

  /** A JSON request; `schema` checks the reply (unless the client was made with validateResponses: false). */
  async json<T>(
    method: string,
    path: string,
    schema: ResponseSchema<T> | null,
    options: OpenOptions = {},
  ): Promise<T> {
    const response = await this.open(method, path, options);
    const url = response.url || this.url(path, options.query);
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      throw new ConnectionError(method, url, error);
    }
    if (schema === null) return undefined as T;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new ProtocolError(url, `${method} answered ${response.status} with a body that is not JSON`);
    }
    if (this.validateResponses) {
      const result = schema.safeParse(value);
      if (!result.success) {
        const issues = result.error.issues
          .slice(0, 3)
          .map((issue) => `${issue.path.map(String).join('.') || '(body)'}: ${issue.message}`)
          .join('; ');
        throw new ProtocolError(url, `the ${method} reply is off the contract: ${issues}`);
      }
    }
    // The server's own object, so that fields newer than this client are kept.
    return value as T;
  }
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
