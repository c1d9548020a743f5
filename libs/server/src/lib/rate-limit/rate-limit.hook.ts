import type { FastifyReply, FastifyRequest } from 'fastify';
import { ENDPOINTS, RATE_LIMIT_HEADERS, routePattern, type RateLimitResource } from '@assistant/contracts';
import type { Principal } from '@assistant/auth';
import type { RateLimitStore, WindowCount } from './rate-limit.store';
import {
  type RateLimitConfig,
  replyWithProblem,
  type ProblemAnswer,
  CREDENTIAL_PAGE_ROUTES,
} from '@assistant/server-kit';
import { isClientRegistration, isProviderRequest } from '@assistant/oauth';

/**
 * The bucket of each declared route, as Fastify names it (`POST /api/v1/queries`), from the contract's `rateLimit`
 * (ROUTES): `queries` for asking, `auth` for a request that is a credential in itself (a pairing code), `uncounted`
 * for what an orchestrator or a monitor polls (`/healthz`, `/readyz`: anonymous traffic from the same address, or a
 * flood, must not make a healthy server look down). The sign-in pages (a password, a sign-in link's token) are
 * `auth` too, by the page registry.
 */
const DECLARED_BUCKETS = new Map<string, RateLimitResource | 'uncounted'>([
  ...ENDPOINTS.filter((endpoint) => endpoint.rateLimit).map(
    (endpoint) => [`${endpoint.method} ${routePattern(endpoint)}`, endpoint.rateLimit!] as const,
  ),
  ...CREDENTIAL_PAGE_ROUTES.map((route) => [route, 'auth'] as const),
]);

/**
 * By the route Fastify matched, not the raw URL, so that an encoded path cannot slip into another bucket. The
 * authorization server's endpoints have no Fastify route (its hook hands them over whole): they are told by the
 * very test that hands them over, so that what reaches it is what is counted as `auth`.
 */
function bucketOf(request: FastifyRequest, route: string): RateLimitResource | 'uncounted' {
  // HEAD is answered by the GET route (Fastify adds it), and counted as that GET.
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  const declared = DECLARED_BUCKETS.get(`${method} ${route}`);
  if (declared) return declared;
  if (route.startsWith('/oauth/')) return 'auth';
  if (!route && isProviderRequest(request.method, request.url)) return 'auth';
  return 'core';
}

/**
 * Clients an address may register in a window (RFC 7591, `POST /oauth/register`), on top of the `auth` count of
 * the request: each one is a record kept until it is purged, so far fewer than requests (an application
 * registers once, then reuses its client id).
 */
export const CLIENT_REGISTRATIONS_PER_ADDRESS = { limit: 20, windowSeconds: 3600 } as const;

/**
 * The caller whose bearer token was verified (null: the token was refused); the token is verified once per
 * request, and the access guard reads the same outcome later (`verifiedCaller` of @assistant/auth). A value rather
 * than a promise when no database was asked (a token verified lately).
 */
export type VerifyBearer = (request: FastifyRequest) => Principal | null | Promise<Principal | null>;

/**
 * Whose bucket a request counts against: `core` per token and `queries` per user (SPEC §7), but only once the
 * token is verified; anything else (no token, a made-up one, a well-formed one with a valid checksum but unknown,
 * revoked or expired) counts against the client address, so that forged tokens cannot each open a fresh bucket.
 */
function callerKey(
  request: FastifyRequest,
  resource: RateLimitResource,
  verify: VerifyBearer,
): string | Promise<string> {
  // Without the header, nothing to verify (a malformed one is refused by the verification, which reads it).
  if (request.headers.authorization === undefined) return clientAddressKey(request.ip);
  const principal = verify(request);
  return principal instanceof Promise
    ? principal.then((verified) => keyOf(request, resource, verified))
    : keyOf(request, resource, principal);
}

function keyOf(request: FastifyRequest, resource: RateLimitResource, principal: Principal | null): string {
  if (!principal) return clientAddressKey(request.ip);
  return resource === 'queries' ? `usr:${principal.userId}` : `tok:${principal.tokenId}`;
}

export const clientAddressKey = (address: string | undefined) => `ip:${address ?? 'unknown'}`;

/** The outcome of counting one request: the `X-RateLimit-*` headers, and the 429 to answer past the limit. */
export interface RateLimitVerdict {
  headers: Record<string, string>;
  exceeded?: ProblemAnswer;
}

export class RateLimits {
  constructor(
    private readonly store: RateLimitStore,
    private readonly config: RateLimitConfig,
  ) {}

  /**
   * Counts one request of `resource` against `key` (`ip:…`, `tok:…`, `usr:…`); a value rather than a promise when
   * the store counts in memory.
   */
  count(resource: RateLimitResource, key: string): RateLimitVerdict | Promise<RateLimitVerdict> {
    const { windowSeconds } = this.config[resource];
    const counted = this.store.hit(`${resource}:${key}`, windowSeconds);
    return counted instanceof Promise
      ? counted.then((window) => this.verdict(resource, window))
      : this.verdict(resource, counted);
  }

  private verdict(resource: RateLimitResource, { count, resetAt }: WindowCount): RateLimitVerdict {
    const { limit, windowSeconds } = this.config[resource];
    const resetSeconds = Math.ceil(resetAt / 1000);
    const headers = {
      [RATE_LIMIT_HEADERS.limit]: String(limit),
      [RATE_LIMIT_HEADERS.remaining]: String(Math.max(0, limit - count)),
      [RATE_LIMIT_HEADERS.used]: String(Math.min(count, limit)),
      [RATE_LIMIT_HEADERS.reset]: String(resetSeconds),
      [RATE_LIMIT_HEADERS.resource]: resource,
    };
    if (count <= limit) return { headers };
    const retryAfter = Math.max(1, resetSeconds - Math.floor(Date.now() / 1000));
    return {
      headers,
      exceeded: {
        code: 'rate_limited',
        detail: `more than ${limit} ${resource} requests in ${windowSeconds} s; try again in ${retryAfter} s`,
        headers: { 'retry-after': String(retryAfter) },
      },
    };
  }

  /** Counts one client registration of the address `key`; the 429 to answer past CLIENT_REGISTRATIONS_PER_ADDRESS. */
  async countRegistration(key: string): Promise<ProblemAnswer | undefined> {
    const { limit, windowSeconds } = CLIENT_REGISTRATIONS_PER_ADDRESS;
    const { count, resetAt } = await this.store.hit(`registrations:${key}`, windowSeconds);
    if (count <= limit) return undefined;
    const retryAfter = Math.max(1, Math.ceil(resetAt / 1000) - Math.floor(Date.now() / 1000));
    return {
      code: 'rate_limited',
      detail: `more than ${limit} client registrations from this address in ${windowSeconds} s; try again in ${retryAfter} s`,
      headers: { 'retry-after': String(retryAfter) },
    };
  }
}

/**
 * Counts the request, puts `X-RateLimit-*` on the reply (SPEC §7) and, past the limit, answers 429 with
 * `Retry-After`. Returns true when it answered: a value rather than a promise when the token needed no database
 * and the store counts in memory (the self-hosted server's every request with a token it verified lately). Runs in
 * Fastify's onRequest hook (and for requests Fastify rejects before routing), so that 401s, 404s and refused
 * bodies carry the headers too.
 */
export type RateLimiter = (request: FastifyRequest, reply: FastifyReply) => boolean | Promise<boolean>;

export function rateLimiter(limits: RateLimits, verify: VerifyBearer): RateLimiter {
  const counted = (request: FastifyRequest, reply: FastifyReply, verdict: RateLimitVerdict) => {
    reply.headers(verdict.headers);
    if (verdict.exceeded) {
      replyWithProblem(request, reply, verdict.exceeded);
      return true;
    }
    if (!isClientRegistration(request.method, request.url)) return false;
    return limits.countRegistration(clientAddressKey(request.ip)).then((exceeded) => {
      if (exceeded) replyWithProblem(request, reply, exceeded);
      return exceeded !== undefined;
    });
  };
  const count = (request: FastifyRequest, reply: FastifyReply, resource: RateLimitResource, key: string) => {
    const verdict = limits.count(resource, key);
    return verdict instanceof Promise
      ? verdict.then((settled) => counted(request, reply, settled))
      : counted(request, reply, verdict);
  };
  return (request, reply) => {
    // Read once: Fastify builds a new routeOptions object at every read.
    const resource = bucketOf(request, request.routeOptions.url ?? '');
    if (resource === 'uncounted') return false;
    const key = callerKey(request, resource, verify);
    return key instanceof Promise
      ? key.then((settled) => count(request, reply, resource, settled))
      : count(request, reply, resource, key);
  };
}
