import { connect, type Socket } from 'node:net';

/** An HTTP/1.1 response as read off a socket: status, headers (lower-case names), body. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends bytes exactly as given (malformed requests, stalled bodies: what an HTTP client refuses to send) to a
 * server listening at `url` and reads what comes back until the server closes the connection, or `waitMs` passes
 * (then `closed` is false).
 */
export async function sendRaw(
  url: string,
  bytes: string | Buffer,
  waitMs = 5_000,
): Promise<{ raw: string; closed: boolean; response: RawResponse | undefined; elapsedMs: number }> {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  const socket: Socket = connect(Number(port), hostname);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.write(bytes);
  const closed = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), waitMs);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
    socket.on('error', () => undefined);
  });
  socket.destroy();
  const raw = Buffer.concat(chunks).toString('utf8');
  return { raw, closed, response: parseResponse(raw), elapsedMs: Date.now() - started };
}

/** The first response in `raw`, if its head is complete. */
export function parseResponse(raw: string): RawResponse | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: raw.slice(end + 4) };
}
