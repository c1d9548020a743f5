import { randomBytes } from 'node:crypto';
import type { StoredTokenKind } from './entities/token.entity';
import { openTestStorage, type TestStorage } from './testing';

/**
 * The lineage of tokens (migration 1795980000000-token-lineage): a token or pairing code records the token it came
 * from, and deleting a token deletes its descendants and codes by the database's cascade, on both dialects.
 */
describe.each(['sqlite', 'postgres'] as const)('token lineage on %s', (dialect) => {
  let db: TestStorage;
  let ada: string;
  let bob: string;

  beforeAll(async () => {
    db = await openTestStorage(dialect);
    ada = (await db.storage.users.create({ email: `ada-${dialect}@example.com`, displayName: 'Ada' })).id;
    bob = (await db.storage.users.create({ email: `bob-${dialect}@example.com`, displayName: 'Bob' })).id;
  });
  afterAll(() => db.dispose());

  async function token(parentTokenId: string | null, kind: StoredTokenKind = 'personal', userId = ada) {
    const created = await db.storage.tokens.create({
      userId,
      kind,
      name: 'test',
      scopes: ['read:account'],
      digest: randomBytes(32).toString('hex'),
      tokenPrefix: 'asp_test',
      expiresAt: null,
      parentTokenId,
    });
    if (!created) throw new Error('the token was not made');
    return created;
  }

  const stillThere = async (id: string) =>
    (await db.query(`SELECT id FROM tokens WHERE id = ${dialect === 'sqlite' ? '?' : '$1'}`, [id])).length >
    0;

  it('records the parent and reads it back', async () => {
    const parent = await token(null);
    const child = await token(parent.id);
    expect(child.parentTokenId).toBe(parent.id);
    expect((await db.storage.tokens.find(ada, child.id, 'personal'))?.parentTokenId).toBe(parent.id);
    expect((await db.storage.tokens.findByDigest(parent.digest))?.parentTokenId).toBeNull();
  });

  it('deletes a token with its descendants, the token first, and nothing else', async () => {
    const root = await token(null);
    const child = await token(root.id);
    const device = await token(child.id, 'device');
    const grandchild = await token(child.id);
    const sibling = await token(null);

    const deleted = await db.storage.tokens.deleteLineage(ada, root.id, 'personal');

    expect(deleted[0]).toBe(root.id);
    expect([...deleted].sort()).toEqual([root.id, child.id, device.id, grandchild.id].sort());
    for (const id of deleted) expect(await stillThere(id)).toBe(false);
    expect(await stillThere(sibling.id)).toBe(true);
  });

  it('deletes the pairing codes of the lineage, claimed or not', async () => {
    const root = await token(null);
    const child = await token(root.id);
    const codeOf = async (parentTokenId: string) =>
      (await db.storage.pairingCodes.create({
        userId: ada,
        digest: randomBytes(32).toString('hex'),
        scopes: ['read:account'],
        tokenExpiresAt: null,
        expiresAt: new Date(Date.now() + 60_000),
        parentTokenId,
      }))!;
    const rootsCode = await codeOf(root.id);
    const childsCode = await codeOf(child.id);
    const othersCode = await codeOf((await token(null)).id);
    expect(rootsCode.parentTokenId).toBe(root.id);

    await db.storage.tokens.deleteLineage(ada, root.id, 'personal');

    expect(await db.storage.pairingCodes.get(ada, rootsCode.id)).toBeNull();
    expect(await db.storage.pairingCodes.get(ada, childsCode.id)).toBeNull();
    expect(await db.storage.pairingCodes.get(ada, othersCode.id)).not.toBeNull();
  });

  it("deletes nothing for another user's token or another kind", async () => {
    const bobs = await token(null, 'personal', bob);
    const adas = await token(null);
    expect(await db.storage.tokens.deleteLineage(ada, bobs.id, 'personal')).toEqual([]);
    expect(await db.storage.tokens.deleteLineage(ada, adas.id, 'device')).toEqual([]);
    expect(await stillThere(bobs.id)).toBe(true);
    expect(await stillThere(adas.id)).toBe(true);
  });

  it('makes no child of a token deleted meanwhile: null, and nothing stored', async () => {
    const parent = await token(null);
    await db.storage.tokens.deleteLineage(ada, parent.id, 'personal');
    const digest = randomBytes(32).toString('hex');

    const orphan = await db.storage.tokens.create({
      userId: ada,
      kind: 'personal',
      name: 'orphan',
      scopes: ['read:account'],
      digest,
      tokenPrefix: 'asp_test',
      expiresAt: null,
      parentTokenId: parent.id,
    });

    expect(orphan).toBeNull();
    expect(await db.storage.tokens.findByDigest(digest)).toBeNull();
  });
});
