import { once } from 'node:events';
/** The concurrent-run cap across instances, on the machine's Redis. */
import type { ProblemError } from '@assistant/contracts';
import { RedisRunSlots } from './redis-run-slots';
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

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: ProblemError) => ({ code: error.code, detail: error.detail }),
  );

it('caps an account’s runs across instances, and a released slot can be taken again', async () => {
  const a = new RedisRunSlots(redisA, 2, 60_000, () => undefined);
  const b = new RedisRunSlots(redisB, 2, 60_000, () => undefined);

  const first = await a.take('usr_1');
  await b.take('usr_1');
  expect(await refusal(a.take('usr_1'))).toEqual({
    code: 'rate_limited',
    detail: '2 queries are already running for this account; wait for one to finish',
  });
  // Another account has slots of its own.
  await b.take('usr_2');

  first();
  first();
  await new Promise((resolve) => setTimeout(resolve, 50));
  await b.take('usr_1');
  expect((await refusal(a.take('usr_1')))?.code).toBe('rate_limited');
});

it('lets no more than the cap through when requests arrive together on both instances', async () => {
  const a = new RedisRunSlots(redisA, 3, 60_000, () => undefined);
  const b = new RedisRunSlots(redisB, 3, 60_000, () => undefined);
  const results = await Promise.allSettled(
    Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).take('usr_1')),
  );
  expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
});

it('lets the slots of a process that crashed lapse after their lifetime', async () => {
  const crashed = new RedisRunSlots(redisA, 1, 300, () => undefined);
  await crashed.take('usr_1');
  const b = new RedisRunSlots(redisB, 1, 60_000, () => undefined);
  expect((await refusal(b.take('usr_1')))?.code).toBe('rate_limited');

  await new Promise((resolve) => setTimeout(resolve, 400));

  await b.take('usr_1');
});

it('answers service_unavailable, not a hang, when Redis cannot be reached', async () => {
  const errors: unknown[] = [];
  const ended = once(redisA.command, 'end');
  redisA.command.disconnect();
  await ended;
  const a = new RedisRunSlots(redisA, 1, 60_000, (error) => errors.push(error));
  expect((await refusal(a.take('usr_1')))?.code).toBe('service_unavailable');
  expect(errors).toHaveLength(1);
});
