import type { FastifyInstance } from 'fastify';
import type { Histogram } from 'prom-client';
import type { ServerMetrics } from './server-metrics';
import { isEventStreamRoute as isEventStream } from '@assistant/server-kit';

/** A request no route matched (404, 405): one label value, not one per URL. */
const UNMATCHED = 'unmatched';

/**
 * Times every HTTP request in one onResponse hook with a pre-bound histogram child per (route, method, status
 * class), so that a request costs a map lookup and an observe. Event streams are left out of the histogram (they
 * last as long as their answer) and counted while open instead.
 */
export function recordHttpMetrics(fastify: FastifyInstance, metrics: ServerMetrics): void {
  const bound = new Map<string, Histogram.Internal<'route' | 'method' | 'status'>>();
  const childFor = (route: string, method: string, status: string) => {
    const key = `${method} ${route} ${status}`;
    let child = bound.get(key);
    if (!child) {
      child = metrics.httpRequestDuration.labels({ route, method, status });
      bound.set(key, child);
    }
    return child;
  };
  // Callback hooks, not async ones: no promise per request.
  fastify.addHook('onRequest', (request, reply, done) => {
    if (isEventStream(request.method, request.routeOptions.url)) {
      metrics.openEventStreams.inc();
      reply.raw.once('close', () => metrics.openEventStreams.dec());
    }
    done();
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url;
    if (reply.statusCode !== 200 || !isEventStream(request.method, route)) {
      const statusClass = `${Math.floor(reply.statusCode / 100)}xx`;
      childFor(route ?? UNMATCHED, request.method, statusClass).observe(reply.elapsedTime / 1000);
    }
    done();
  });
}
