import { isDeepStrictEqual } from 'node:util';
import { findEndpoint, RATE_LIMIT_HEADERS, type Problem } from '@assistant/contracts';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  token?: string | null;
  json?: unknown;
  /** Sent as is, for malformed bodies. */
  rawBody?: string;
  headers?: Record<string, string>;
}

/**
 * A success must be one the contract declares: a declared route, its declared status, and a JSON body that its
 * response schema accepts with nothing left over (an undeclared field is drift as much as a missing one).
 */
function checkSuccessAgainstContract(method: string, url: string, status: number, body: unknown): void {
  const path = new URL(url).pathname;
  const endpoint = findEndpoint(method, path);
  if (!endpoint)
    throw new Error(`${method} ${path} answered ${status}, but the contract declares no such route`);
  if (status !== endpoint.response.status)
    throw new Error(`${method} ${path} answered ${status}; the contract says ${endpoint.response.status}`);
  const schema = endpoint.response.schema;
  if (!schema || endpoint.response.contentType === 'text/event-stream') return;
  const result = schema.safeParse(body);
  if (!result.success) {
    const issues = result.error.issues.map(
      (issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`,
    );
    throw new Error(`${method} ${path}: the body does not match the contract: ${issues.join('; ')}`);
  }
  if (!isDeepStrictEqual(result.data, body))
    throw new Error(
      `${method} ${path}: the body has fields the contract does not declare: ${JSON.stringify(body)}`,
    );
}

/**
 * A real HTTP client (fetch, i.e. undici) over a listening server. Every response is checked for what must hold
 * everywhere: never a 500, always the rate-limit headers, problem+json for every error, and every success as
 * the contract declares it.
 */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly token: string | null,
  ) {}

  withToken(token: string | null): ApiClient {
    return new ApiClient(this.baseUrl, token);
  }

  async request<T = unknown>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    const token = options.token === undefined ? this.token : options.token;
    const headers: Record<string, string> = { ...options.headers };
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    } else if (options.rawBody !== undefined) {
      body = options.rawBody;
    }
    const url = path.startsWith('/healthz') ? `${this.baseUrl}${path}` : `${this.baseUrl}/api/v1${path}`;
    const response = await fetch(url, { method, headers, body });
    const text = await response.text();
    const contentType = response.headers.get('content-type') ?? '';
    const parsed = text && contentType.includes('json') ? JSON.parse(text) : text;

    if (response.status >= 500) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    // /healthz is not rate-limited (a flood must not make a healthy server look down), so it has no bucket to show.
    for (const header of path.startsWith('/healthz') ? [] : Object.values(RATE_LIMIT_HEADERS)) {
      if (!response.headers.has(header))
        throw new Error(`${method} ${path} (${response.status}) lacks ${header}`);
    }
    if (response.status >= 400) {
      if (!contentType.startsWith('application/problem+json')) {
        throw new Error(`${method} ${path} answered ${response.status} as ${contentType}: ${text}`);
      }
      const problem = parsed as Problem;
      if (problem.status !== response.status || !problem.code || !problem.request_id) {
        throw new Error(`${method} ${path}: malformed problem ${text}`);
      }
    }
    if (response.ok) checkSuccessAgainstContract(method, url, response.status, parsed);
    return { status: response.status, headers: response.headers, body: parsed as T };
  }

  get<T = unknown>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = unknown>(path: string, json?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', path, { ...options, json });
  }
  patch<T = unknown>(path: string, json?: unknown, options?: RequestOptions) {
    return this.request<T>('PATCH', path, { ...options, json });
  }
  delete<T = unknown>(path: string, options?: RequestOptions) {
    return this.request<T>('DELETE', path, options);
  }
}
