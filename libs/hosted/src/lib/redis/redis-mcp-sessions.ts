import type { Principal } from '@assistant/auth';
import type { RedisConnections } from './redis-connections';
import { redisUnavailable } from './redis-connections';
import {
  credentialOf,
  newSessionId,
  requestKey,
  type McpSession,
  type McpSessionStore,
  type RequestId,
} from '@assistant/mcp-server';
import { type McpLimits } from '@assistant/server-kit';

/** Redis's own clock in ms, so that instances with skewed clocks agree on idle times. */
const NOW_MS = `
local t = redis.call('TIME')
local nowMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * Opens a session: drops the account's sessions whose idle time ran out, ends its least recently used ones
 * beyond the limit (their records and in-flight marks), and records the new one, which expires unless used.
 *
 * KEYS[1] the account's sessions (sorted by last use); ARGV: id, user id, credential, limit, idle ms, the
 * session key prefix, the in-flight key prefix.
 */
const OPEN = `${NOW_MS}
local idle = tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', nowMs - idle)
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4]) + 1
if over > 0 then
  for _, old in ipairs(redis.call('ZRANGE', KEYS[1], 0, over - 1)) do
    redis.call('DEL', ARGV[6] .. old, ARGV[7] .. old)
  end
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, over - 1)
end
redis.call('HSET', ARGV[6] .. ARGV[1], 'userId', ARGV[2], 'credential', ARGV[3])
redis.call('PEXPIRE', ARGV[6] .. ARGV[1], idle)
redis.call('ZADD', KEYS[1], nowMs, ARGV[1])
redis.call('PEXPIRE', KEYS[1], idle)
return 1
`;

/**
 * Uses a session: its record and its place among the account's sessions start their idle time again.
 *
 * KEYS[1] the session; ARGV: idle ms, the account key prefix, id. Returns [user id, credential] or nil.
 */
const USE = `
local fields = redis.call('HMGET', KEYS[1], 'userId', 'credential')
if not fields[1] then return false end
${NOW_MS}
redis.call('PEXPIRE', KEYS[1], ARGV[1])
local account = ARGV[2] .. fields[1]
redis.call('ZADD', account, nowMs, ARGV[3])
redis.call('PEXPIRE', account, ARGV[1])
return fields
`;

/** KEYS[1] the session, KEYS[2] its in-flight marks; ARGV: the account key prefix, id. */
const END = `
local userId = redis.call('HGET', KEYS[1], 'userId')
redis.call('DEL', KEYS[1], KEYS[2])
if userId then redis.call('ZREM', ARGV[1] .. userId, ARGV[2]) end
return 1
`;

/**
 * Marks a request id in flight unless it is (marks past their time lapse: their instance crashed).
 *
 * KEYS[1] the session, KEYS[2] its in-flight marks; ARGV: the request key, ms. Returns 1, 0 (in flight), -1 (no
 * session).
 */
const CLAIM = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', nowMs)
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[2], nowMs + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1
`;

/**
 * The hosted service's MCP sessions, in Redis, so that any instance serves any request of a session and a
 * session outlives the instance that opened it (B8). Bounded per account and expiring when idle as in memory.
 */
export class RedisMcpSessionStore implements McpSessionStore {
  private readonly sessionPrefix: string;
  private readonly inFlightPrefix: string;
  private readonly accountPrefix: string;

  constructor(
    private readonly redis: RedisConnections,
    private readonly limits: Pick<McpLimits, 'sessionsPerAccount' | 'sessionIdleMs'>,
    private readonly onError: (error: unknown, what: string) => void,
  ) {
    this.sessionPrefix = redis.key('mcp', 'session', '');
    this.inFlightPrefix = redis.key('mcp', 'in-flight', '');
    this.accountPrefix = redis.key('mcp', 'sessions', '');
  }

  async open(principal: Principal): Promise<McpSession> {
    const session = { id: newSessionId(), userId: principal.userId, credential: credentialOf(principal) };
    await this.run('opening an MCP session', () =>
      this.redis.command.eval(
        OPEN,
        1,
        this.accountPrefix + session.userId,
        session.id,
        session.userId,
        session.credential,
        this.limits.sessionsPerAccount,
        this.limits.sessionIdleMs,
        this.sessionPrefix,
        this.inFlightPrefix,
      ),
    );
    return session;
  }

  async use(id: string): Promise<McpSession | null> {
    const fields = (await this.run('serving an MCP session', () =>
      this.redis.command.eval(
        USE,
        1,
        this.sessionPrefix + id,
        this.limits.sessionIdleMs,
        this.accountPrefix,
        id,
      ),
    )) as [string, string] | null;
    return fields ? { id, userId: fields[0], credential: fields[1] } : null;
  }

  async alive(id: string): Promise<boolean> {
    return (
      (await this.run('serving an MCP session', () => this.redis.command.exists(this.sessionPrefix + id))) ===
      1
    );
  }

  async end(id: string): Promise<void> {
    await this.run('ending an MCP session', () =>
      this.redis.command.eval(
        END,
        2,
        this.sessionPrefix + id,
        this.inFlightPrefix + id,
        this.accountPrefix,
        id,
      ),
    );
  }

  async claimRequest(id: string, requestId: RequestId, forMs: number): Promise<boolean> {
    const claimed = await this.run('serving an MCP session', () =>
      this.redis.command.eval(
        CLAIM,
        2,
        this.sessionPrefix + id,
        this.inFlightPrefix + id,
        requestKey(requestId),
        Math.ceil(forMs),
      ),
    );
    return claimed === 1;
  }

  async releaseRequest(id: string, requestId: RequestId): Promise<void> {
    // Should this fail (Redis down), the mark lapses on its own.
    await this.redis.command
      .zrem(this.inFlightPrefix + id, requestKey(requestId))
      .catch((error: unknown) => this.onError(error, 'could not release an MCP request id'));
  }

  /** A Redis call whose failure the client is told as a 503 (try again), and the log in full. */
  private async run<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      this.onError(error, `could not reach Redis ${what}`);
      throw redisUnavailable(what);
    }
  }
}
