import { openTestStorage, type TestStorage } from '@assistant/storage/testing';
import type { Storage } from '@assistant/storage';
import { TokenService } from './token.service';
import { digestToken } from './token-format';

describe('TokenService on a real database', () => {
  let storage: Storage;
  let query: TestStorage['query'];
  let dispose: () => Promise<void>;
  let tokens: TokenService;
  let userId: string;

  beforeAll(async () => {
    ({ storage, query, dispose } = await openTestStorage('sqlite'));
    tokens = new TokenService(storage.tokens);
    userId = (await storage.users.create({ email: 'a@example.com', displayName: 'A' })).id;
  });
  afterAll(async () => dispose());

  it('verifies an issued token and stores only its digest', async () => {
    const { secret, record } = await tokens.issue({
      userId,
      kind: 'personal',
      name: 'cli',
      scopes: ['read:account', 'read:account'],
    });
    expect(await tokens.verify(secret)).toMatchObject({
      userId,
      tokenId: record.id,
      kind: 'personal',
      scopes: ['read:account'],
    });
    const rows = await query('SELECT * FROM tokens');
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(rows[0].digest).toBe(digestToken(secret));
  });

  it('refuses expired and revoked tokens', async () => {
    const expired = await tokens.issue({
      userId,
      kind: 'personal',
      name: 'old',
      scopes: ['read:account'],
      expiresAt: new Date(Date.now() - 1000),
    });
    expect(await tokens.verify(expired.secret)).toBeNull();
    const revoked = await tokens.issue({ userId, kind: 'personal', name: 'gone', scopes: ['read:account'] });
    expect(await tokens.revoke(userId, revoked.record.id, 'personal')).toBe(true);
    expect(await tokens.verify(revoked.secret)).toBeNull();
    expect(await tokens.revoke(userId, revoked.record.id, 'personal')).toBe(false);
  });

  it("cannot revoke another user's token", async () => {
    const otherId = (await storage.users.create({ email: 'b@example.com', displayName: 'B' })).id;
    const theirs = await tokens.issue({
      userId: otherId,
      kind: 'personal',
      name: 'theirs',
      scopes: ['read:account'],
    });
    expect(await tokens.revoke(userId, theirs.record.id, 'personal')).toBe(false);
    expect(await tokens.verify(theirs.secret)).not.toBeNull();
  });

  it('records when a token was last used', async () => {
    const { secret, record } = await tokens.issue({
      userId,
      kind: 'personal',
      name: 'used',
      scopes: ['read:account'],
    });
    await tokens.verify(secret);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const page = await tokens.list(userId, 'personal', { limit: 100 });
    expect(page.items.find((t) => t.id === record.id)?.lastUsedAt).toBeInstanceOf(Date);
  });
});

describe('TokenService with a verification cache', () => {
  it('answers from the cache, and forgets a token revoked through it at once', async () => {
    const { storage, query, dispose } = await openTestStorage('sqlite');
    try {
      const userId = (await storage.users.create({ email: 'c@example.com', displayName: 'C' })).id;
      const tokens = new TokenService(storage.tokens, { cacheTtlMs: 60_000 });
      const { secret, record } = await tokens.issue({
        userId,
        kind: 'personal',
        name: 'cached',
        scopes: ['read:account'],
      });
      expect(await tokens.verify(secret)).not.toBeNull();
      // Served from the cache even though the row is gone behind the service's back…
      await query('DELETE FROM tokens');
      expect(await tokens.verify(secret)).not.toBeNull();
      // …but a revocation through the service is seen on the very next request.
      await tokens.revoke(userId, record.id, 'personal');
      expect(await tokens.verify(secret)).toBeNull();
    } finally {
      await dispose();
    }
  });
});

describe('TokenService revocation in a deployment of several processes (SECURITY B8)', () => {
  it('answers a revocation only once the other processes were told, and not later than its bound', async () => {
    const { storage, dispose } = await openTestStorage('sqlite');
    try {
      const userId = (await storage.users.create({ email: 'd@example.com', displayName: 'D' })).id;
      let told!: () => void;
      const told$ = new Promise<void>((resolve) => (told = resolve));
      const matches: unknown[] = [];
      const tokens = new TokenService(storage.tokens, {
        onForget: (match) => {
          matches.push(match);
          return told$;
        },
      });
      const { record } = await tokens.issue({
        userId,
        kind: 'personal',
        name: 'bot',
        scopes: ['read:account'],
      });
      let answered = false;
      const revoking = tokens.revoke(userId, record.id, 'personal').then(() => (answered = true));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(matches).toEqual([{ tokenId: record.id }]);
      // The other processes have not been told yet: the revocation has not answered.
      expect(answered).toBe(false);
      told();
      await revoking;
      expect(answered).toBe(true);

      // A bus that never answers holds a revocation no longer than its bound.
      const stuck = new TokenService(storage.tokens, { onForget: () => new Promise<void>(() => undefined) });
      const other = await stuck.issue({ userId, kind: 'personal', name: 'bot 2', scopes: ['read:account'] });
      await expect(stuck.revoke(userId, other.record.id, 'personal')).resolves.toBe(true);
    } finally {
      await dispose();
    }
  });
});

describe('TokenService revocation racing a verification', () => {
  it('does not cache a token whose verification read the row before it was revoked', async () => {
    const { storage, dispose } = await openTestStorage('sqlite');
    try {
      const userId = (await storage.users.create({ email: 'r@example.com', displayName: 'R' })).id;
      const tokens = new TokenService(storage.tokens, { cacheTtlMs: 60_000 });
      const { secret, record } = await tokens.issue({
        userId,
        kind: 'personal',
        name: 'raced',
        scopes: ['read:account'],
      });
      await Promise.all([tokens.verify(secret), tokens.revoke(userId, record.id, 'personal')]);
      expect(await tokens.verify(secret)).toBeNull();
    } finally {
      await dispose();
    }
  });
});

describe('TokenService and OAuth access tokens of this server', () => {
  let storage: Storage;
  let dispose: () => Promise<void>;
  let userId: string;
  let tokens: TokenService;
  beforeAll(async () => {
    ({ storage, dispose } = await openTestStorage('sqlite'));
    tokens = new TokenService(storage.tokens);
    userId = (await storage.users.create({ email: 'o@example.com', displayName: 'O' })).id;
  });
  afterAll(async () => dispose());

  const API = 'http://assistant.test/api/v1';
  const accessToken = (id: string, fields: Record<string, unknown>) =>
    storage.oauth.upsert(
      'AccessToken',
      id,
      {
        jti: id,
        accountId: userId,
        clientId: 'app_1',
        grantId: 'grant_1',
        scope: 'read:memories write:account',
        aud: API,
        exp: Math.floor(Date.now() / 1000) + 900,
        ...fields,
      },
      900,
    );
  let oauth: TokenService;
  beforeAll(() => {
    oauth = new TokenService(storage.tokens, { oauth: { records: storage.oauth, audience: () => API } });
  });

  it('become a principal of the application, never with write:account', async () => {
    await accessToken('a'.repeat(43), {});
    expect(await oauth.verify('a'.repeat(43))).toMatchObject({
      userId,
      kind: 'oauth_access',
      clientId: 'app_1',
      grantId: 'grant_1',
      scopes: ['read:memories'],
    });
  });

  it('are refused for another audience, once expired, and when OAuth is not set up', async () => {
    await accessToken('b'.repeat(43), { aud: 'https://elsewhere.example/api' });
    await accessToken('c'.repeat(43), { exp: Math.floor(Date.now() / 1000) - 1 });
    expect(await oauth.verify('b'.repeat(43))).toBeNull();
    expect(await oauth.verify('c'.repeat(43))).toBeNull();
    expect(await tokens.verify('a'.repeat(43))).toBeNull();
  });
});
