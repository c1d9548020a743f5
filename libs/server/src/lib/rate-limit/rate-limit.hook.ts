import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RATE_LIMIT_HEADERS, type RateLimitResource } from '@assistant/contracts';
import { checkTokenFormat } from '@assistant/auth';
import type { RateLimitStore } from './rate-limit.store';
import type { RateLimitConfig } from '../config/server-config';
import { replyWithProblem } from '../http/reply-problem';

/** By the route Fastify matched, not the raw URL, so that an encoded path cannot slip into another bucket. */
function resourceOf(request: FastifyRequest): RateLimitResource {
  const route = request.routeOptions.url ?? '';
  if (request.method === 'POST' && route === '/api/v1/queries') return 'queries';
  if (route.startsWith('/oauth/')) return 'auth';
  return 'core';
}

/** The bearer secret if it is at least well formed (prefix and checksum); made-up strings count as none. */
function wellFormedSecret(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const secret = header && /^bearer\s+\S+$/i.test(header) ? header.slice(7).trim() : undefined;
  return secret && checkTokenFormat(secret) ? secret : undefined;
}

/** Finds the account behind a token, for the buckets that SPEC §7 counts per user. */
export type UserOfToken = (secret: string) => Promise<string | null>;

/**
 * `core` is counted per token (by its digest, never the secret) and `queries` per user, whichever of the
 * user's tokens calls. Without a token, or with one that is not even well formed or not valid, per client
 * address: made-up tokens must not each get a fresh bucket.
 */
async function callerKey(
  request: FastifyRequest,
  resource: RateLimitResource,
  userOf: UserOfToken,
): Promise<string> {
  const secret = wellFormedSecret(request);
  if (!secret) return `ip:${request.ip}`;
  if (resource === 'queries') {
    const userId = await userOf(secret);
    return userId ? `usr:${userId}` : `ip:${request.ip}`;
  }
  return `tok:${createHash('sha256').update(secret).digest('base64url')}`;
}

/**
 * Counts the request, puts `X-RateLimit-*` on the reply (SPEC §7) and, past the limit, answers 429 with
 * `Retry-After`. Returns true when it answered. Runs in Fastify's onRequest hook (and for requests Fastify
 * rejects before routing), so that 401s, 404s and refused bodies carry the headers too.
 */
export type RateLimiter = (request: FastifyRequest, reply: FastifyReply) => Promise<boolean>;

export function rateLimiter(
  store: RateLimitStore,
  config: RateLimitConfig,
  userOf: UserOfToken,
): RateLimiter {
  return async (request, reply) => {
    const resource = resourceOf(request);
    const { limit, windowSeconds } = config[resource];
    const key = await callerKey(request, resource, userOf);
    const { count, resetAt } = await store.hit(`${resource}:${key}`, windowSeconds);
    const resetSeconds = Math.ceil(resetAt / 1000);
    reply.header(RATE_LIMIT_HEADERS.limit, limit);
    reply.header(RATE_LIMIT_HEADERS.remaining, Math.max(0, limit - count));
    reply.header(RATE_LIMIT_HEADERS.used, Math.min(count, limit));
    reply.header(RATE_LIMIT_HEADERS.reset, resetSeconds);
    reply.header(RATE_LIMIT_HEADERS.resource, resource);
    if (count <= limit) return false;
    const retryAfter = Math.max(1, resetSeconds - Math.floor(Date.now() / 1000));
    replyWithProblem(request, reply, {
      code: 'rate_limited',
      detail: `more than ${limit} ${resource} requests in ${windowSeconds} s; try again in ${retryAfter} s`,
      headers: { 'retry-after': String(retryAfter) },
    });
    return true;
  };
}
