import Fastify, { type FastifyRequest } from 'fastify';
import { routeOf, type RequestRoute } from './request-route';

describe('routeOf', () => {
  it("reads a request's route once and tells an event stream from a plain route", async () => {
    const fastify = Fastify();
    const seen: { first: RequestRoute; again: RequestRoute; reads: number }[] = [];
    fastify.addHook('onRequest', (request, _reply, done) => {
      let reads = 0;
      const routeOptions = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(request), 'routeOptions');
      // Count the reads of Fastify's getter on this request only.
      Object.defineProperty(request, 'routeOptions', {
        get: () => (reads++, routeOptions?.get?.call(request) as FastifyRequest['routeOptions']),
      });
      const first = routeOf(request);
      seen.push({ first, again: routeOf(request), reads });
      done();
    });
    fastify.get('/api/v1/queries/:id/events', async () => 'stream');
    fastify.get('/api/v1/me', async () => 'me');
    await fastify.inject({ method: 'GET', url: '/api/v1/queries/q-1/events' });
    await fastify.inject({ method: 'GET', url: '/api/v1/me' });
    await fastify.close();

    expect(seen.map(({ first }) => first)).toEqual([
      { url: '/api/v1/queries/:id/events', eventStream: true },
      { url: '/api/v1/me', eventStream: false },
    ]);
    for (const { first, again, reads } of seen) {
      expect(again).toBe(first);
      expect(reads).toBe(1);
    }
  });
});
