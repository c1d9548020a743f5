import { MemoryRateLimitStore } from './rate-limit.store';

describe('MemoryRateLimitStore', () => {
  afterEach(() => jest.useRealTimers());

  it('counts per key within a window aligned to its length, then starts again', async () => {
    jest.useFakeTimers({ now: new Date('2026-01-01T10:15:00Z') });
    const store = new MemoryRateLimitStore();
    expect(await store.hit('a', 3600)).toEqual({ count: 1, resetAt: Date.parse('2026-01-01T11:00:00Z') });
    expect((await store.hit('a', 3600)).count).toBe(2);
    expect((await store.hit('b', 3600)).count).toBe(1);
    jest.setSystemTime(new Date('2026-01-01T11:00:00Z'));
    expect(await store.hit('a', 3600)).toEqual({ count: 1, resetAt: Date.parse('2026-01-01T12:00:00Z') });
    await store.close();
  });
});
