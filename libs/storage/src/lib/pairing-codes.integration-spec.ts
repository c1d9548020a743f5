import { createHash, randomBytes } from 'node:crypto';
import { openTestStorage, type TestStorage } from './testing';

const digestOf = (code: string) => createHash('sha256').update(code).digest('hex');
const freshDigest = () => digestOf(randomBytes(8).toString('hex'));
const minutesFromNow = (minutes: number) => new Date(Date.now() + minutes * 60_000);

describe.each(['sqlite', 'postgres'] as const)('pairing codes on %s', (dialect) => {
  let db: TestStorage;
  let ada: string;
  let bob: string;

  beforeAll(async () => {
    db = await openTestStorage(dialect);
    ada = (await db.storage.users.create({ email: `ada-${dialect}@example.com`, displayName: 'Ada' })).id;
    bob = (await db.storage.users.create({ email: `bob-${dialect}@example.com`, displayName: 'Bob' })).id;
  });
  afterAll(() => db.dispose());

  const newCode = (digest = freshDigest(), expiresAt = minutesFromNow(10)) =>
    db.storage.pairingCodes.create({
      userId: ada,
      digest,
      scopes: ['read:account', 'write:queries'],
      tokenExpiresAt: null,
      expiresAt,
    });

  it('keeps only the digest, for its account; another account does not find it', async () => {
    const digest = freshDigest();
    const code = await newCode(digest);
    expect(code).toMatchObject({
      id: expect.stringMatching(/^pair_/),
      userId: ada,
      digest,
      scopes: ['read:account', 'write:queries'],
      tokenExpiresAt: null,
      claimedAt: null,
      deviceTokenId: null,
    });
    expect(await db.storage.pairingCodes.get(ada, code!.id)).toEqual(code);
    expect(await db.storage.pairingCodes.get(bob, code!.id)).toBeNull();
    const [row] = await db.query(
      dialect === 'postgres'
        ? 'SELECT * FROM pairing_codes WHERE id = $1'
        : 'SELECT * FROM pairing_codes WHERE id = ?',
      [code!.id],
    );
    expect(Object.keys(row).sort()).toEqual(
      [
        'claimed_at',
        'created_at',
        'device_token_id',
        'digest',
        'expires_at',
        'id',
        'parent_token_id',
        'scopes',
        'token_expires_at',
        'user_id',
      ].sort(),
    );
  });

  it('refuses a second code with a digest already taken (the caller draws another)', async () => {
    const digest = freshDigest();
    expect(await newCode(digest)).not.toBeNull();
    expect(await newCode(digest)).toBeNull();
  });

  it('is claimed once: the second claim, and a claim of an unknown digest, get nothing', async () => {
    const code = (await newCode())!;
    const claimed = await db.storage.pairingCodes.claim(code.digest);
    expect(claimed).toMatchObject({ id: code.id, userId: ada, claimedAt: expect.any(Date) });
    expect(await db.storage.pairingCodes.claim(code.digest)).toBeNull();
    expect(await db.storage.pairingCodes.claim(freshDigest())).toBeNull();

    await db.storage.pairingCodes.attachDevice(code.id, 'dev_01');
    expect(await db.storage.pairingCodes.get(ada, code.id)).toMatchObject({ deviceTokenId: 'dev_01' });
  });

  it('cannot be claimed once expired', async () => {
    const code = (await newCode(freshDigest(), new Date(Date.now() - 1)))!;
    expect(await db.storage.pairingCodes.claim(code.digest)).toBeNull();
    // Nor by a clock that reads the instant of expiry.
    const later = (await newCode(freshDigest(), minutesFromNow(10)))!;
    expect(await db.storage.pairingCodes.claim(later.digest, later.expiresAt)).toBeNull();
    expect(
      await db.storage.pairingCodes.claim(later.digest, new Date(later.expiresAt.getTime() - 1)),
    ).not.toBeNull();
  });

  it('lets exactly one of ten concurrent claims of one code win', async () => {
    const code = (await newCode())!;
    const results = await Promise.all(
      Array.from({ length: 10 }, () => db.storage.pairingCodes.claim(code.digest)),
    );
    expect(results.filter((r) => r !== null)).toHaveLength(1);
  });

  it('forgets codes a day after they expired', async () => {
    const old = (await newCode(freshDigest(), new Date(Date.now() - 25 * 3_600_000)))!;
    const recent = (await newCode(freshDigest(), new Date(Date.now() - 3_600_000)))!;
    await newCode();
    expect(await db.storage.pairingCodes.get(ada, old.id)).toBeNull();
    expect(await db.storage.pairingCodes.get(ada, recent.id)).not.toBeNull();
  });
});
