import type { Principal } from '@assistant/auth';
import type { RedisConnections } from './redis-connections';
import { cleanUp, freshPrefix, openTestRedis } from '../../testing/redis-test-connections';
import { MemoryMcpSessionStore, type McpSessionStore } from '@assistant/mcp-server';
import { RedisMcpSessionStore } from './redis-mcp-sessions';

/**
 * The two session stores behave alike: the one in memory (self-hosted) and the one in Redis (hosted, shared by
 * two instances here), bounded per account and expiring when idle.
 */
const LIMITS = { sessionsPerAccount: 2, sessionIdleMs: 400 };

const principal = (userId: string, tokenId = `tok_${userId}`, grantId?: string): Principal => ({
  userId,
  tokenId,
  kind: 'personal',
  scopes: [],
  expiresAt: null,
  ...(grantId ? { grantId } : {}),
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Instances {
  a: McpSessionStore;
  b: McpSessionStore;
  close(): Promise<void>;
}

describe.each([
  [
    'in memory',
    async (): Promise<Instances> => {
      const store = new MemoryMcpSessionStore(LIMITS);
      return { a: store, b: store, close: async () => undefined };
    },
  ],
  [
    'in Redis, shared by two instances',
    async (): Promise<Instances> => {
      const prefix = freshPrefix();
      const connections: RedisConnections[] = await Promise.all([
        openTestRedis(prefix),
        openTestRedis(prefix),
      ]);
      const [one, two] = connections.map((redis) => new RedisMcpSessionStore(redis, LIMITS, () => undefined));
      return { a: one!, b: two!, close: () => cleanUp(...connections) };
    },
  ],
])('MCP sessions %s', (_name, open) => {
  let stores: Instances;
  beforeEach(async () => {
    stores = await open();
  });
  afterEach(async () => {
    await stores.close();
  });

  it('opens a session on one instance that the other serves, its own credential’s only, until it ends', async () => {
    const session = await stores.a.open(principal('usr_1'));
    expect(session.id).toMatch(/^[\w-]{22}$/);
    expect(await stores.b.use(session.id)).toEqual(session);
    expect(session.credential).toBe('tok_usr_1');
    // An OAuth client's session belongs to its grant, which its refreshed tokens keep.
    expect((await stores.a.open(principal('usr_2', 'tok_x', 'grant_7'))).credential).toBe('grant_7');
    await stores.b.end(session.id);
    expect(await stores.a.use(session.id)).toBeNull();
    expect(await stores.a.alive(session.id)).toBe(false);
  });

  it("ends an account's least recently used session beyond its limit, not another account's", async () => {
    const first = await stores.a.open(principal('usr_1'));
    const second = await stores.b.open(principal('usr_1'));
    const theirs = await stores.a.open(principal('usr_2'));
    await sleep(5);
    await stores.a.use(first.id);
    await sleep(5);
    const third = await stores.b.open(principal('usr_1'));
    expect(await stores.a.alive(second.id)).toBe(false);
    expect(await stores.a.alive(first.id)).toBe(true);
    expect(await stores.a.alive(third.id)).toBe(true);
    expect(await stores.a.alive(theirs.id)).toBe(true);
  });

  it('ends a session no one used for the idle time; a use starts it again, asking whether it lives does not', async () => {
    const idle = await stores.a.open(principal('usr_1'));
    const used = await stores.a.open(principal('usr_1'));
    for (let i = 0; i < 3; i++) {
      await sleep(LIMITS.sessionIdleMs / 2);
      expect(await stores.b.use(used.id)).not.toBeNull();
      await stores.b.alive(idle.id);
    }
    expect(await stores.a.use(idle.id)).toBeNull();
    // Expired sessions leave room: two new ones, and the used one is the least recent.
    await stores.a.open(principal('usr_1'));
    expect(await stores.a.alive(used.id)).toBe(true);
  });

  it('keeps a request id in flight once per session, until released or lapsed', async () => {
    const session = await stores.a.open(principal('usr_1'));
    const other = await stores.a.open(principal('usr_1'));
    expect(await stores.a.claimRequest(session.id, 7, 60_000)).toBe(true);
    expect(await stores.b.claimRequest(session.id, 7, 60_000)).toBe(false);
    // `7` and `"7"` are two ids; another session has ids of its own.
    expect(await stores.b.claimRequest(session.id, '7', 60_000)).toBe(true);
    expect(await stores.b.claimRequest(other.id, 7, 60_000)).toBe(true);
    await stores.b.releaseRequest(session.id, 7);
    expect(await stores.a.claimRequest(session.id, 7, 100)).toBe(true);
    // A claim of a crashed instance lapses.
    await sleep(150);
    expect(await stores.b.claimRequest(session.id, 7, 60_000)).toBe(true);
    // No session, no claim.
    expect(await stores.a.claimRequest('no-such-session', 1, 60_000)).toBe(false);
  });
});
