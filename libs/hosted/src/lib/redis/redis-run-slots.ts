import { randomBytes } from 'node:crypto';
import type { RedisConnections } from './redis-connections';
import { redisUnavailable } from './redis-connections';
import { runCapReached, type ReleaseRunSlot, type RunSlots } from '@assistant/server-kit';

/**
 * Takes a slot atomically: drops the account's slots whose time ran out, and adds one unless `limit` are taken.
 * Each slot is a member of a sorted set scored by when it lapses (Redis's own clock, so that instances with
 * skewed clocks agree): a process that crashes with slots taken cannot hold them past the longest possible
 * run. Returns the number taken with this one, or minus the number taken when the cap is reached.
 *
 * KEYS[1] the account's slots; ARGV: slot id, limit, lifetime in ms.
 */
const TAKE_SLOT = `
local now = redis.call('TIME')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', nowMs)
local taken = redis.call('ZCARD', KEYS[1])
if taken >= tonumber(ARGV[2]) then return -taken end
redis.call('ZADD', KEYS[1], nowMs + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return taken + 1
`;
/**
 * TAKE_SLOT's name on the command connection: ioredis sends it by its digest (EVALSHA) once Redis has it, not
 * its whole text with every query as EVAL does (which Redis then hashes again to find its compiled copy).
 */
const TAKE_SLOT_COMMAND = 'assistantTakeRunSlot';

/** The command connection, with TAKE_SLOT defined on it. */
type WithTakeSlot = RedisConnections['command'] &
  Record<typeof TAKE_SLOT_COMMAND, (key: string, ...args: Array<string | number>) => Promise<unknown>>;

/** The concurrent-run cap shared by every instance of the hosted service. */
export class RedisRunSlots implements RunSlots {
  /**
   * @param slotLifetimeMs how long a slot is held at most: longer than any run can last (the run timeout,
   *   which includes waiting for confirmations, plus a margin), so that only a crashed process's slots lapse.
   */
  constructor(
    private readonly redis: RedisConnections,
    private readonly limit: number,
    private readonly slotLifetimeMs: number,
    private readonly onError: (error: unknown, what: string) => void,
  ) {
    redis.command.defineCommand(TAKE_SLOT_COMMAND, { numberOfKeys: 1, lua: TAKE_SLOT });
  }

  async take(userId: string): Promise<ReleaseRunSlot> {
    const key = this.redis.key('slots', userId);
    const slot = randomBytes(8).toString('hex');
    let taken: number;
    try {
      const command = this.redis.command as WithTakeSlot;
      taken = Number(await command[TAKE_SLOT_COMMAND](key, slot, this.limit, this.slotLifetimeMs));
    } catch (error) {
      this.onError(error, 'could not take a run slot');
      throw redisUnavailable('starting a query');
    }
    if (taken <= 0) throw runCapReached(-taken);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // Should this fail (Redis down), the slot lapses on its own after its lifetime.
      this.redis.command
        .zrem(key, slot)
        .catch((error: unknown) => this.onError(error, 'could not release a run slot'));
    };
  }
}
