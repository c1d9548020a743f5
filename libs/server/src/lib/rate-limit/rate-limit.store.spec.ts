import { MemoryRateLimitStore } from './rate-limit.store';

describe('MemoryRateLimitStore', () => {
  afterEach(() => jest.useRealTimers());

  it('counts per key within a window, then starts again', async () => {
    jest.useFakeTimers({ now: new Date('2026-01-01T10:15:00Z') });
    const store = new MemoryRateLimitStore();
    expect(await store.hit('a', 3600)).toEqual({ count: 1, resetAt: Date.parse('2026-01-01T11:15:00Z') });
    jest.advanceTimersByTime(60_000);
    expect(await store.hit('a', 3600)).toEqual({ count: 2, resetAt: Date.parse('2026-01-01T11:15:00Z') });
    expect((await store.hit('b', 3600)).count).toBe(1);
    jest.advanceTimersByTime(3600_000);
    expect(await store.hit('a', 3600)).toEqual({ count: 1, resetAt: Date.parse('2026-01-01T12:16:00Z') });
    await store.close();
  });

  it('holds at most maxKeys keys, forgetting the least recently counted', async () => {
    const store = new MemoryRateLimitStore(100);
    await store.hit('kept', 3600);
    for (let i = 0; i < 1_000; i++) {
      await store.hit(`forged-${i}`, 3600);
      if (i % 50 === 0) await store.hit('kept', 3600);
    }

    expect(store.size).toBe(100);
    expect((await store.hit('kept', 3600)).count).toBe(22);
    // Forgotten for good, not only hidden: it counts afresh.
    expect((await store.hit('forged-0', 3600)).count).toBe(1);
    await store.close();
  });

  it('forgets a key once its window has ended: a key lives about as long as its window', async () => {
    jest.useFakeTimers({ now: new Date('2026-01-01T10:00:00Z') });
    const store = new MemoryRateLimitStore();
    await store.hit('short-lived', 60);
    await store.hit('long-lived', 3600);
    jest.advanceTimersByTime(61_000);

    await store.hit('long-lived', 3600);

    expect(store.size).toBe(1);
    await store.close();
  });
});
