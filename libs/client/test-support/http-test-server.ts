import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the test server saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (request: SeenRequest, res: ServerResponse, req: IncomingMessage) => unknown;

export interface TestServer {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1, on a free port, that records every request it gets. */
export async function startTestServer(handler: Handler): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server: Server = createServer({ noDelay: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://test');
      const seen: SeenRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(seen);
      Promise.resolve(handler(seen, res, req)).catch((error: unknown) => {
        res.destroy(error as Error);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on which nothing listens. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body?: unknown,
  headers: Record<string, string> = {},
): void {
  if (body === undefined) {
    res.writeHead(status, headers).end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

export function sendProblem(
  res: ServerResponse,
  status: number,
  code: string,
  detail: string,
  headers: Record<string, string> = {},
  extra: Record<string, unknown> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/problem+json', ...headers }).end(
    JSON.stringify({
      type: `https://assistant.dev/problems/${code.replace(/_/g, '-')}`,
      title: code,
      status,
      code,
      detail,
      request_id: 'req_test',
      ...extra,
    }),
  );
}

export const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/**
 * The two ways the client sends requests, for suites that run over both: node:http (its default) and a fetch
 * passed in (here the global one).
 */
export const TRANSPORTS: ReadonlyArray<[name: string, fetch: typeof globalThis.fetch | undefined]> = [
  ['node:http', undefined],
  ['fetch', globalThis.fetch],
];
