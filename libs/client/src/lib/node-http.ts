import { request as httpRequest, type IncomingMessage } from 'node:http';
import { sendWithFetch, type HttpRequest, type HttpResponse } from './http-exchange';

/** The statuses fetch follows (`redirect: 'follow'`). */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The client's default way to send a request in Node.js: node:http(s) and its global agent (keep-alive).
 *
 * Why not the global fetch: on Node.js 20 its first call loads the bundled undici (~40 ms of CPU), most of the
 * wall time a short `assistant chat` could spare. A redirect, which only a proxy in front of the server would
 * send, is left to the global fetch so that it is followed exactly as before; nothing was done by the
 * server that answered it, so sending the request again is what fetch itself would do.
 */
export function sendWithNodeHttp(request: HttpRequest): Promise<HttpResponse> {
  return new Promise<IncomingMessage>((resolve, reject) => {
    const { signal } = request;
    if (signal?.aborted) return reject(signal.reason);
    // node:https loads TLS and crypto (~2 ms of CPU): only for a server that needs it.
    const send = request.url.startsWith('https:')
      ? (require('node:https') as typeof import('node:https')).request
      : httpRequest;
    const outgoing = send(request.url, { method: request.method, headers: request.headers }, resolve);
    outgoing.on('error', reject);
    // Not http.request's own `signal` option, and no error given to destroy(): either way, an abort after the
    // last byte came (the stream's terminal event) destroyed the socket with an 'error' that nothing handled.
    // A reader still waiting sees the body cut short; the transport then rethrows the signal's reason.
    const onAbort = () => outgoing.destroy();
    signal?.addEventListener('abort', onAbort, { once: true });
    outgoing.once('close', () => signal?.removeEventListener('abort', onAbort));
    // The whole body in end(): Node sends it with its Content-Length, not chunked (as fetch does).
    outgoing.end(request.body);
  }).then((message) => {
    if (REDIRECTS.has(message.statusCode ?? 0) && message.headers.location !== undefined) {
      message.resume();
      return sendWithFetch(globalThis.fetch)(request);
    }
    return new NodeHttpResponse(message, request.url);
  });
}

class NodeHttpResponse implements HttpResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: HttpResponse['headers'];

  constructor(
    private readonly message: IncomingMessage,
    readonly url: string,
  ) {
    this.status = message.statusCode ?? 0;
    this.ok = this.status >= 200 && this.status < 300;
    this.statusText = message.statusMessage ?? '';
    this.headers = {
      get: (name) => {
        const value = message.headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
    };
  }

  get body(): AsyncIterable<Uint8Array> {
    return this.message;
  }

  async text(): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of this.message) chunks.push(chunk as Buffer);
    // As fetch's text(): UTF-8, a byte order mark dropped.
    return new TextDecoder().decode(Buffer.concat(chunks));
  }

  discard(): void {
    this.message.destroy();
  }
}
