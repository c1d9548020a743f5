import type { Deployment, RateLimitResource } from '@assistant/contracts';
import type { DatabaseConfig } from '@assistant/storage';
import type { QueryConfig } from './query-config';

export type RateLimitConfig = Record<RateLimitResource, { limit: number; windowSeconds: number }>;

/** Everything an HTTP server of either deployment needs, validated before it is built. */
export interface ServerConfig {
  deployment: Deployment;
  host: string;
  port: number;
  database: DatabaseConfig;
  rateLimits: RateLimitConfig;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Behind a reverse proxy, trust its X-Forwarded-For for the client address. */
  trustProxy: boolean;
  queries: QueryConfig;
  /**
   * How long a verified token is trusted without asking the database. One self-hosted process sees every
   * revocation itself; the hosted service runs several processes and keeps this at 0 for now.
   */
  tokenCacheTtlMs: number;
}

/** A configuration problem: the process should stop with this one line, not a stack trace. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export function positiveInt(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new ConfigError(`${name} must be a positive whole number (got "${raw}")`);
  return value;
}

export function portNumber(name: string, raw: string | number | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65_535) {
    throw new ConfigError(`${name} must be a port number between 0 and 65535 (got "${raw}")`);
  }
  return value;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function logLevel(
  raw: string | undefined,
  fallback: ServerConfig['logLevel'],
): ServerConfig['logLevel'] {
  if (raw === undefined || raw === '') return fallback;
  if (!(LOG_LEVELS as readonly string[]).includes(raw)) {
    throw new ConfigError(`ASSISTANT_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${raw}")`);
  }
  return raw as ServerConfig['logLevel'];
}

/** Rate limits from `ASSISTANT_RATE_LIMIT_<RESOURCE>` (requests per hour), with the deployment's defaults. */
export function rateLimitsFromEnv(env: NodeJS.ProcessEnv, defaults: RateLimitConfig): RateLimitConfig {
  const read = (resource: RateLimitResource) => ({
    limit: positiveInt(
      `ASSISTANT_RATE_LIMIT_${resource.toUpperCase()}`,
      env[`ASSISTANT_RATE_LIMIT_${resource.toUpperCase()}`],
      defaults[resource].limit,
    ),
    windowSeconds: positiveInt(
      'ASSISTANT_RATE_LIMIT_WINDOW_SECONDS',
      env.ASSISTANT_RATE_LIMIT_WINDOW_SECONDS,
      defaults[resource].windowSeconds,
    ),
  });
  return { core: read('core'), queries: read('queries'), auth: read('auth') };
}
