import { z } from 'zod';

/** The rate-limit buckets of SPEC §7, named in `X-RateLimit-Resource`. */
export const rateLimitResourceSchema = z.enum(['core', 'queries', 'auth']);
export type RateLimitResource = z.infer<typeof rateLimitResourceSchema>;

export const RATE_LIMIT_HEADERS = {
  limit: 'x-ratelimit-limit',
  remaining: 'x-ratelimit-remaining',
  used: 'x-ratelimit-used',
  reset: 'x-ratelimit-reset',
  resource: 'x-ratelimit-resource',
} as const;

/** Hosted defaults (SPEC §7); a self-hosted server may configure its own numbers. */
export const HOSTED_RATE_LIMITS = {
  core: { limit: 5_000, windowSeconds: 3_600 },
  queries: { limit: 60, windowSeconds: 3_600 },
  auth: { limit: 300, windowSeconds: 3_600 },
  concurrentQueriesPerUser: 4,
} as const;
