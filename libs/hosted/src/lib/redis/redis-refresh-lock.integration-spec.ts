/** The OAuth refresh lock shared by hosted instances: one refresh per grant at a time, across connections. */
import type { RedisConnections } from './redis-connections';
import { RedisRefreshLock } from './redis-refresh-lock';
import { cleanUp, freshPrefix, openTestRedis } from '../../testing/redis-test-connections';

let redisA: RedisConnections;
let redisB: RedisConnections;
const errors: unknown[] = [];
const onError = (error: unknown) => errors.push(error);

beforeEach(async () => {
  const prefix = freshPrefix();
  [redisA, redisB] = await Promise.all([openTestRedis(prefix), openTestRedis(prefix)]);
  errors.length = 0;
});
afterEach(async () => {
  await cleanUp(redisA, redisB);
  expect(errors).toEqual([]);
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the OAuth refresh lock in Redis', () => {
  it('lets one instance refresh a grant at a time; another grant is not held up', async () => {
    const a = new RedisRefreshLock(redisA, onError);
    const b = new RedisRefreshLock(redisB, onError);
    const order: string[] = [];
    const refresh = (who: string) => async () => {
      order.push(`${who} in`);
      await pause(150);
      order.push(`${who} out`);
      return who;
    };
    const other = b.hold('grant-2', async () => {
      order.push('other grant');
      return 'other';
    });
    const results = await Promise.all([
      a.hold('grant-1', refresh('a')),
      b.hold('grant-1', refresh('b')),
      other,
    ]);
    expect(results).toEqual(['a', 'b', 'other']);
    const first = order.indexOf('a in') < order.indexOf('b in') ? 'a' : 'b';
    const second = first === 'a' ? 'b' : 'a';
    expect(order.indexOf(`${first} out`)).toBeLessThan(order.indexOf(`${second} in`));
    expect(order.indexOf('other grant')).toBeLessThan(order.indexOf(`${first} out`));
  });

  it('is released when the refresh fails, and lapses when its holder never releases it', async () => {
    const a = new RedisRefreshLock(redisA, onError, 300);
    await expect(a.hold('grant-1', () => Promise.reject(new Error('invalid_grant')))).rejects.toThrow(
      'invalid_grant',
    );
    expect(await a.hold('grant-1', async () => 'again')).toBe('again');
    // A holder that crashed: its key is left set, and lapses after the lock's lifetime.
    await redisA.command.set(redisA.key('oauth-refresh', 'grant-3'), 'crashed', 'PX', 300);
    const started = Date.now();
    expect(await a.hold('grant-3', async () => 'after')).toBe('after');
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
  });
});
