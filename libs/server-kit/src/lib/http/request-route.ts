import type { FastifyRequest } from 'fastify';
import { isEventStreamRoute } from './event-stream-routes';

/** What the hooks of a request need to know of its route. */
export interface RequestRoute {
  /** The route as Fastify names it (`/api/v1/memories/:id`); undefined when none matched (404, 405). */
  readonly url: string | undefined;
  /** Whether it answers with an event stream (the contract says which). */
  readonly eventStream: boolean;
}

const ROUTE = Symbol('assistant.route');

type WithRoute = FastifyRequest & { [ROUTE]?: RequestRoute };

/**
 * The request's route, read once a request and kept on it: Fastify builds a new twelve-field `routeOptions`
 * object at every read, and the rate limiter, the metrics' two hooks and the integrations' activity each need the
 * route (issue 23, decision 0016).
 */
export function routeOf(request: FastifyRequest): RequestRoute {
  const known = (request as WithRoute)[ROUTE];
  if (known) return known;
  const url = request.routeOptions.url;
  const route: RequestRoute = { url, eventStream: isEventStreamRoute(request.method, url) };
  (request as WithRoute)[ROUTE] = route;
  return route;
}
