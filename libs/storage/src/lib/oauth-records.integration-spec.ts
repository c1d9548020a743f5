import { openTestStorage, type TestStorage } from './testing';

describe.each(['sqlite', 'postgres'] as const)('OAuth records on %s', (dialect) => {
  let db: TestStorage;
  beforeAll(async () => {
    db = await openTestStorage(dialect);
  });
  afterAll(() => db.dispose());

  const grant = (id: string, accountId: string, clientId: string) =>
    db.storage.oauth.upsert('Grant', id, { jti: id, accountId, clientId, kind: 'Grant' }, 3600);
  const token = (kind: string, id: string, grantId: string) =>
    db.storage.oauth.upsert(kind, id, { jti: id, grantId, accountId: 'usr_a', clientId: 'app' }, 60);

  it('consumes a code exactly once, however many redeem it at the same time', async () => {
    await token('AuthorizationCode', `code-${dialect}`, 'g0');
    const results = await Promise.all(
      Array.from({ length: 10 }, () => db.storage.oauth.consume('AuthorizationCode', `code-${dialect}`)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await db.storage.oauth.consume('AuthorizationCode', `code-${dialect}`)).toBe(false);
    expect((await db.storage.oauth.find('AuthorizationCode', `code-${dialect}`))?.consumedAt).toBeInstanceOf(
      Date,
    );
  });

  it('leaves out what has expired, and purges it', async () => {
    await db.storage.oauth.upsert('Interaction', 'gone', { uid: 'u-gone' }, 1);
    expect(await db.storage.oauth.findByUid('Interaction', 'u-gone')).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await db.storage.oauth.find('Interaction', 'gone')).toBeNull();
    expect(await db.storage.oauth.purgeExpired()).toBeGreaterThanOrEqual(1);
  });

  it("revokes a grant with all its codes and tokens, and an application's grants of one account only", async () => {
    await grant('g1', 'usr_a', 'app');
    await grant('g2', 'usr_b', 'app');
    await token('AccessToken', 'at1', 'g1');
    await token('RefreshToken', 'rt1', 'g1');
    await token('AccessToken', 'at2', 'g2');
    expect((await db.storage.oauth.grantsOf('usr_a')).map((g) => g.id)).toEqual(['g1']);

    await db.storage.oauth.revokeGrant('g1');
    for (const [kind, id] of [
      ['Grant', 'g1'],
      ['AccessToken', 'at1'],
      ['RefreshToken', 'rt1'],
    ]) {
      expect(await db.storage.oauth.find(kind, id)).toBeNull();
    }
    expect(await db.storage.oauth.find('AccessToken', 'at2')).not.toBeNull();

    await grant('g3', 'usr_a', 'app');
    await token('AccessToken', 'at3', 'g3');
    expect(await db.storage.oauth.revokeClient('usr_a', 'app')).toBe(2);
    expect(await db.storage.oauth.find('AccessToken', 'at3')).toBeNull();
    expect(await db.storage.oauth.find('AccessToken', 'at2')).not.toBeNull();
  });
});
