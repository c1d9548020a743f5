/** One request as the transport sends it: headers already complete, the body already serialized. */
export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * What the client reads of a response: the part of fetch's Response that node:http can give as well, so that
 * the transport works the same over either.
 */
export interface HttpResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  /** The address that answered (after any redirect). */
  readonly url: string;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
  /** The body's bytes as they arrive (read once); null when there is none. */
  readonly body: AsyncIterable<Uint8Array> | null;
  /** Drops a body that will not be read, freeing the connection. */
  discard(): void;
}

/** Sends one request; rejects when no response came (refused, reset, aborted…), with the cause as it is. */
export type SendRequest = (request: HttpRequest) => Promise<HttpResponse>;

/** A SendRequest over a fetch function (the global one, or one the caller passed). */
export function sendWithFetch(fetchImpl: typeof globalThis.fetch): SendRequest {
  return async ({ method, url, headers, body, signal }) => {
    const response = await fetchImpl(url, { method, headers, body, signal });
    return {
      ok: response.ok,
      status: response.status,
      statusText: response.statusText,
      url: response.url,
      headers: response.headers,
      text: () => response.text(),
      body: response.body,
      discard: () => void response.body?.cancel().catch(() => undefined),
    };
  };
}
