import { once } from 'node:events';
/** Rate-limit counts shared by the hosted instances, on the machine's Redis. */
import { RedisRateLimitStore } from './redis-rate-limit.store';
import type { RedisConnections } from './redis-connections';
import { cleanUp, freshPrefix, openTestRedis } from '../../testing/redis-test-connections';

let redisA: RedisConnections;
let redisB: RedisConnections;
beforeEach(async () => {
  const prefix = freshPrefix();
  [redisA, redisB] = await Promise.all([openTestRedis(prefix), openTestRedis(prefix)]);
});
afterEach(async () => {
  await cleanUp(redisA, redisB);
});

it('counts one key across instances, within its window', async () => {
  const a = new RedisRateLimitStore(redisA.command, redisA.prefix);
  const b = new RedisRateLimitStore(redisB.command, redisB.prefix);
  const before = Date.now();

  expect((await a.hit('core:tok:1', 3600)).count).toBe(1);
  expect((await b.hit('core:tok:1', 3600)).count).toBe(2);
  const third = await a.hit('core:tok:1', 3600);

  expect(third.count).toBe(3);
  expect(third.resetAt).toBeGreaterThanOrEqual(before + 3599_000);
  expect(third.resetAt).toBeLessThanOrEqual(Date.now() + 3600_000);
  expect((await b.hit('core:tok:2', 3600)).count).toBe(1);
  await a.close();
  await b.close();
});

it('counts in this process while Redis cannot be reached, and in Redis again once it can', async () => {
  const a = new RedisRateLimitStore(redisA.command, redisA.prefix);
  await a.hit('core:ip:x', 3600);
  const ended = once(redisA.command, 'end');
  redisA.command.disconnect();
  await ended;

  expect((await a.hit('core:ip:x', 3600)).count).toBe(1);
  expect((await a.hit('core:ip:x', 3600)).count).toBe(2);

  await redisA.command.connect();
  expect((await a.hit('core:ip:x', 3600)).count).toBe(2);
  await a.close();
});
