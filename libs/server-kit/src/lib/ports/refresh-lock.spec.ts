import { MemoryRefreshLock } from './refresh-lock';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a self-hosted server's OAuth refresh lock", () => {
  it('runs one refresh of a grant at a time, in the order asked, and another grant meanwhile', async () => {
    const lock = new MemoryRefreshLock();
    const order: string[] = [];
    const refresh = (who: string) => async () => {
      order.push(`${who} in`);
      await pause(20);
      order.push(`${who} out`);
      return who;
    };
    const results = await Promise.all([
      lock.hold('grant-1', refresh('a')),
      lock.hold('grant-1', refresh('b')),
      lock.hold('grant-2', refresh('c')),
    ]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(order.indexOf('a out')).toBeLessThan(order.indexOf('b in'));
    expect(order.indexOf('c in')).toBeLessThan(order.indexOf('a out'));
  });

  it('lets the next refresh run after one that failed', async () => {
    const lock = new MemoryRefreshLock();
    const failed = lock.hold('grant-1', () => Promise.reject(new Error('invalid_grant')));
    const next = lock.hold('grant-1', async () => 'next');
    await expect(failed).rejects.toThrow('invalid_grant');
    expect(await next).toBe('next');
  });
});
