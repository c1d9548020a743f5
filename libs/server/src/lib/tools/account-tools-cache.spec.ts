import { AccountToolsCache } from './account-tools-cache';

/** A cache on a clock the test moves, and a build that counts its calls. */
function setUp(ttlMs = 1_000, maxEntries = 10) {
  let now = 0;
  const cache = new AccountToolsCache<string>(ttlMs, maxEntries, () => now);
  const builds: string[] = [];
  const build = (userId: string) => () => {
    builds.push(userId);
    return Promise.resolve(`${userId}#${builds.length}`);
  };
  return { cache, builds, build, wait: (ms: number) => (now += ms) };
}

describe('AccountToolsCache', () => {
  it("keeps each account's value until it is forgotten, and builds it again then", async () => {
    const { cache, builds, build } = setUp();
    expect(await cache.get('ada', build('ada'))).toBe('ada#1');
    expect(await cache.get('ada', build('ada'))).toBe('ada#1');
    expect(await cache.get('bob', build('bob'))).toBe('bob#2');
    cache.forget('ada');
    expect(await cache.get('ada', build('ada'))).toBe('ada#3');
    expect(await cache.get('bob', build('bob'))).toBe('bob#2');
    cache.forgetAll();
    expect(await cache.get('bob', build('bob'))).toBe('bob#4');
    expect(builds).toEqual(['ada', 'bob', 'ada', 'bob']);
  });

  it('shares one build between callers at the same time, and keeps no build that a change overtook', async () => {
    const { cache, builds } = setUp();
    let finish!: (value: string) => void;
    const slow = () => {
      builds.push('slow');
      return new Promise<string>((resolve) => (finish = resolve));
    };
    const first = cache.get('ada', slow);
    const second = cache.get('ada', slow);
    cache.forget('ada');
    finish('before the change');
    expect(await first).toBe('before the change');
    expect(await second).toBe('before the change');
    expect(builds).toEqual(['slow']);
    expect(await cache.get('ada', () => Promise.resolve('after the change'))).toBe('after the change');
  });

  it('keeps no failed build', async () => {
    const { cache, build } = setUp();
    await expect(cache.get('ada', () => Promise.reject(new Error('database down')))).rejects.toThrow(
      'database down',
    );
    expect(await cache.get('ada', build('ada'))).toBe('ada#1');
  });

  it('lets an entry lapse after its time, and keeps at most so many accounts, the newest', async () => {
    const { cache, builds, build, wait } = setUp(1_000, 2);
    await cache.get('ada', build('ada'));
    wait(999);
    await cache.get('ada', build('ada'));
    wait(1);
    await cache.get('ada', build('ada'));
    expect(builds).toEqual(['ada', 'ada']);
    await cache.get('bob', build('bob'));
    await cache.get('cyd', build('cyd'));
    await cache.get('bob', build('bob'));
    await cache.get('ada', build('ada'));
    expect(builds).toEqual(['ada', 'ada', 'bob', 'cyd', 'ada']);
  });
});
