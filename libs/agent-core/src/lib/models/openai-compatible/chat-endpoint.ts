import { STATUS_CODES } from 'node:http';
import { APICallError } from '@ai-sdk/provider';
import type { Dispatcher } from 'undici';
import type { ChatRequestBody } from './chat-request';
import { ModelUnavailableError } from '../../errors';
import { networkModules } from './network-modules';

export interface ChatResponse {
  body: Dispatcher.ResponseData['body'];
  headers: Record<string, string>;
}

/**
 * `POST {baseURL}/chat/completions` over a keep-alive undici pool of its own (one per model server), which skips
 * the WHATWG fetch layers of Node's global fetch. Failures become the SDK's `APICallError`, shaped as the SDK's own
 * providers shape them, so `describeModelError` and the SDK's retries read them the same way:
 *   - no HTTP answer (refused, unknown host, reset before the headers): no `statusCode`, the network error as
 *     `cause` (with its `code`, e.g. ECONNREFUSED), retryable;
 *   - a non-2xx answer: `statusCode`, `responseBody`, the server's own `error.message`, retryable for 408, 409,
 *     429 and 5xx (the SDK's rule).
 * An abort rejects with the signal's reason, as fetch does.
 *
 * The request body is never put into an error (`requestBodyValues`): it holds the user's conversation.
 */
export class ChatEndpoint {
  readonly url: string;
  private readonly origin: string;
  private readonly path: string;
  private pool: Promise<Dispatcher> | undefined;
  private readonly headers: Record<string, string>;

  constructor(baseURL: string, apiKey: string | undefined) {
    const url = chatCompletionsUrl(baseURL);
    this.url = url.href;
    this.path = url.pathname + url.search;
    this.origin = url.origin;
    this.headers = {
      'content-type': 'application/json',
      ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
    };
  }

  async post(
    body: ChatRequestBody,
    extraHeaders: Record<string, string | undefined> | undefined,
    signal: AbortSignal | undefined,
  ): Promise<ChatResponse> {
    const dispatcher = await this.dispatcher(); // outside the try: a module that fails to load is no network error
    let response: Dispatcher.ResponseData;
    try {
      response = await dispatcher.request({
        method: 'POST',
        path: this.path,
        headers: extraHeaders ? withExtraHeaders(this.headers, extraHeaders) : this.headers,
        body: JSON.stringify(body),
        signal,
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason ?? error;
      throw new APICallError({
        message: `Cannot connect to API: ${error instanceof Error ? error.message : String(error)}`,
        cause: error,
        url: this.url,
        requestBodyValues: undefined,
        isRetryable: true,
      });
    }
    const headers = flatHeaders(response.headers);
    if (response.statusCode >= 200 && response.statusCode < 300) return { body: response.body, headers };
    throw await this.httpError(response, headers, signal);
  }

  /** Lets go of the pool's idle connections. */
  async close(): Promise<void> {
    await (await this.pool)?.close();
  }

  /** One keep-alive pool per model server, made on first use. */
  private dispatcher(): Promise<Dispatcher> {
    return (this.pool ??= networkModules().then(({ Pool }) => new Pool(this.origin)));
  }

  private async httpError(
    response: Dispatcher.ResponseData,
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<APICallError> {
    let text = '';
    try {
      text = await response.body.text();
    } catch (error) {
      if (signal?.aborted) throw signal.reason ?? error;
    }
    return new APICallError({
      message: serverMessage(text) ?? STATUS_CODES[response.statusCode] ?? `HTTP ${response.statusCode}`,
      url: this.url,
      requestBodyValues: undefined,
      statusCode: response.statusCode,
      responseHeaders: headers,
      responseBody: text,
    });
  }
}

function chatCompletionsUrl(baseURL: string): URL {
  try {
    return new URL(`${baseURL.replace(/\/+$/, '')}/chat/completions`);
  } catch {
    throw new ModelUnavailableError(
      `the model's base URL is not a URL: "${baseURL}" (e.g. http://127.0.0.1:8080/v1)`,
    );
  }
}

/** `error.message` of an OpenAI-style error body (`{"error": {"message": …}}`), or `message` (vLLM's older form). */
function serverMessage(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message);
    return typeof message === 'string' && message ? message : undefined;
  } catch {
    return undefined;
  }
}

function withExtraHeaders(
  base: Record<string, string>,
  extra: Record<string, string | undefined>,
): Record<string, string> {
  const headers = { ...base };
  for (const [name, value] of Object.entries(extra))
    if (value !== undefined) headers[name.toLowerCase()] = value;
  return headers;
}

function flatHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
