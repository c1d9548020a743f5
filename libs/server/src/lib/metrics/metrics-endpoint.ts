import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OperatorError } from '@assistant/contracts';
import { listeningUrl } from '@assistant/server-kit';
import type { ServerMetrics } from './server-metrics';

/**
 * `GET /metrics` in Prometheus's text format on a port of its own (ASSISTANT_METRICS_PORT), apart from the API:
 * no token, no rate limit, not behind the public proxy.
 */
export class MetricsEndpoint {
  private server?: Server;
  /** `http://host:port` once listening. */
  url?: string;

  constructor(private readonly metrics: ServerMetrics) {}

  async listen(host: string, port: number): Promise<void> {
    const { registry } = this.metrics;
    const server = createServer((request, response) => {
      if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics here\n');
        return;
      }
      registry.metrics().then(
        (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
        (error: unknown) =>
          response.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${String(error)}\n`),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          error.code === 'EADDRINUSE'
            ? new OperatorError(
                `ASSISTANT_METRICS_PORT: port ${port} on ${host} is already in use; choose another`,
              )
            : error,
        ),
      );
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    this.url = listeningUrl(host, (server.address() as AddressInfo).port);
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
