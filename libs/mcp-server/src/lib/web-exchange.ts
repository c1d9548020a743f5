import type { FastifyReply, FastifyRequest } from 'fastify';

/** Headers that describe the Fastify request's own body and connection, which the web Request does not carry. */
const NOT_FORWARDED = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);

/**
 * The request as the MCP SDK takes it (a web Request): its headers, and a signal that aborts when the client goes
 * away. Fastify has read the body already; it goes to the SDK as `parsedBody`.
 */
export function webRequestOf(request: FastifyRequest, base: string, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || NOT_FORWARDED.has(name)) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return new Request(new URL(request.url, base), { method: request.method, headers, signal });
}

/**
 * Writes the SDK's web Response to the client: the headers at once, then the body as it comes (an event stream
 * stays open as long as the SDK keeps it). Resolves once the answer is over: written in full, or the client left
 * (then the SDK's stream is cancelled, which ends what it served).
 */
export async function sendWebResponse(
  reply: FastifyReply,
  response: Response,
  extraHeaders: Record<string, string> = {},
): Promise<void> {
  reply.hijack();
  const raw = reply.raw;
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  raw.writeHead(response.status, { ...headers, ...extraHeaders });
  if (!response.body) {
    raw.end();
    return;
  }
  const reader = response.body.getReader();
  const gone = new Promise<void>((resolve) => raw.once('close', resolve));
  void gone.then(() => reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || raw.destroyed) break;
      // A slow client: wait for it to take what it has, or to go away.
      if (!raw.write(value)) await Promise.race([new Promise((resolve) => raw.once('drain', resolve)), gone]);
    }
  } catch {
    // The stream was cancelled (the client left) or broke: nothing more to write.
  } finally {
    raw.end();
  }
}
