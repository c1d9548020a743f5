import type { ServerOptions } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { isEventStreamRoute } from './event-stream-routes';

/**
 * Deadlines for what a client sends, so that a connection that stops half-way (headers that never end, a body
 * shorter than its Content-Length) is closed instead of held for ever: a few thousand of them would hold the
 * server. Our requests are small (bodies ≤ 64 KiB), so the deadlines are short. None limits how long a response
 * takes: an event stream lasts as long as its run (up to 5 minutes).
 */
export interface HttpTimeouts {
  /** From the first byte of a request to the end of its headers (Node's `headersTimeout`; Node's default 60 s). */
  headersMs: number;
  /** From the first byte of a request to the end of its body (Node's `requestTimeout`; Fastify's default: none). */
  requestMs: number;
  /**
   * A socket with no traffic either way this long is closed (Fastify's `connectionTimeout`; default none). Event
   * streams are exempt once they start: their `: ping` interval is configurable and may be longer.
   */
  idleMs: number;
  /** A kept-alive connection between two requests (Fastify's default: 72 s, above common load balancers' 60 s). */
  keepAliveMs: number;
  /** How often Node looks for requests past the first two deadlines (its default, 30 s, would add up to that). */
  checkEveryMs: number;
}

export const HTTP_TIMEOUTS: HttpTimeouts = {
  headersMs: 10_000,
  requestMs: 30_000,
  idleMs: 60_000,
  keepAliveMs: 72_000,
  checkEveryMs: 1_000,
};

/** The deadlines as Fastify's and Node's server options. */
export function serverTimeoutOptions(timeouts: HttpTimeouts): Pick<
  FastifyServerOptions,
  'connectionTimeout' | 'keepAliveTimeout' | 'requestTimeout'
> & {
  http: ServerOptions;
} {
  return {
    connectionTimeout: timeouts.idleMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    requestTimeout: timeouts.requestMs,
    http: { headersTimeout: timeouts.headersMs, connectionsCheckingInterval: timeouts.checkEveryMs },
  };
}

/**
 * Lifts the idle deadline from the requests of the routes that answer with an event stream (the contract says
 * which), once their body is in: between two events of a slow model there may be nothing to send for longer than
 * it. A pre-handler of those routes alone, added as each route is registered: the other requests do not pay for
 * the look-up.
 */
export function exemptEventStreamsFromIdleTimeout(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((method) => isEventStreamRoute(method, route.url))) return;
    const preHandlers = route.preHandler ?? [];
    route.preHandler = [...(Array.isArray(preHandlers) ? preHandlers : [preHandlers]), liftIdleTimeout];
  });
}

function liftIdleTimeout(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  // Injected requests (light-my-request) have a socket without timers.
  request.raw.socket.setTimeout?.(0);
  done();
}
