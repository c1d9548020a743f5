import { ENDPOINTS, routePattern } from '@assistant/contracts';

/**
 * The routes that answer with an event stream (the contract says which), as Fastify names them
 * (`GET /api/v1/queries/:id/events`): known by a set look-up, where matching a URL against every endpoint cost a
 * few µs per request.
 */
const EVENT_STREAM_ROUTES = new Set(
  ENDPOINTS.filter((endpoint) => endpoint.response.contentType === 'text/event-stream').map(
    (endpoint) => `${endpoint.method} ${routePattern(endpoint)}`,
  ),
);

/** Whether the route Fastify names `url` (undefined: none matched) answers `method` with an event stream. */
export function isEventStreamRoute(method: string, url: string | undefined): boolean {
  return url !== undefined && EVENT_STREAM_ROUTES.has(`${method} ${url}`);
}
