import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RATE_LIMIT_HEADERS, type RateLimitResource } from '@assistant/contracts';
import type { RateLimitStore } from './rate-limit.store';
import type { RateLimitConfig } from '../config/server-config';
import { toProblem } from '../http/api-error';

function resourceOf(request: FastifyRequest): RateLimitResource {
  const path = request.url.split('?')[0];
  if (request.method === 'POST' && path === '/api/v1/queries') return 'queries';
  if (path.startsWith('/oauth/')) return 'auth';
  return 'core';
}

/** Requests are counted per token (by its digest, never the secret) and, without a token, per client address. */
function callerKey(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (header && /^bearer\s+\S+$/i.test(header)) {
    return `tok:${createHash('sha256').update(header.slice(7).trim()).digest('base64url')}`;
  }
  return `ip:${request.ip}`;
}

/**
 * Puts `X-RateLimit-*` on every response (SPEC §7) and answers 429 with `Retry-After` past the limit. A Fastify
 * hook rather than a Nest guard, so that it also covers 401s and unknown routes.
 */
export function installRateLimits(
  fastify: FastifyInstance,
  store: RateLimitStore,
  config: RateLimitConfig,
): void {
  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const resource = resourceOf(request);
    const { limit, windowSeconds } = config[resource];
    const { count, resetAt } = await store.hit(`${resource}:${callerKey(request)}`, windowSeconds);
    const resetSeconds = Math.ceil(resetAt / 1000);
    reply.header(RATE_LIMIT_HEADERS.limit, limit);
    reply.header(RATE_LIMIT_HEADERS.remaining, Math.max(0, limit - count));
    reply.header(RATE_LIMIT_HEADERS.used, Math.min(count, limit));
    reply.header(RATE_LIMIT_HEADERS.reset, resetSeconds);
    reply.header(RATE_LIMIT_HEADERS.resource, resource);
    if (count > limit) {
      const retryAfter = Math.max(1, resetSeconds - Math.floor(Date.now() / 1000));
      const problem = toProblem(
        'rate_limited',
        `more than ${limit} ${resource} requests in ${windowSeconds} s; try again in ${retryAfter} s`,
        String(request.id),
      );
      return reply.code(429).header('retry-after', retryAfter).type('application/problem+json').send(problem);
    }
  });
}
