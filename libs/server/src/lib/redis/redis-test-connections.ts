import { randomBytes } from 'node:crypto';
import { RedisConnections } from './redis-connections';

/** The machine's Redis, for the integration specs (database 15 by default: the jest preset's jest-test-env.cjs). */
export const TEST_REDIS_URL = process.env['ASSISTANT_TEST_REDIS_URL'] as string;

/** A key prefix of one test's own: its keys and its bus channel touch no one else's. */
export const freshPrefix = () => `test-${randomBytes(6).toString('hex')}:`;

/** Deletes every key under the test's prefix through a connection still open, then closes them all. */
export async function cleanUp(...connections: RedisConnections[]): Promise<void> {
  const live = connections.find((redis) => redis.ready);
  let cursor = '0';
  if (live) {
    do {
      const [next, keys] = await live.command.scan(cursor, 'MATCH', `${live.prefix}*`, 'COUNT', 500);
      if (keys.length > 0) await live.command.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  }
  for (const redis of connections) redis.close();
}

export function openTestRedis(prefix = freshPrefix()): Promise<RedisConnections> {
  return RedisConnections.open(TEST_REDIS_URL, prefix);
}
