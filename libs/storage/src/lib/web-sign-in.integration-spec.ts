import { createHash, randomBytes } from 'node:crypto';
import { openTestStorage, type TestStorage } from './testing';

const freshDigest = () => createHash('sha256').update(randomBytes(16)).digest('hex');
const minutesFrom = (at: Date, minutes: number) => new Date(at.getTime() + minutes * 60_000);

describe.each(['sqlite', 'postgres'] as const)('web sign-in records on %s', (dialect) => {
  let db: TestStorage;
  let ada: string;
  const sql = (text: string) => {
    let n = 0;
    return dialect === 'postgres' ? text.replace(/\?/g, () => `$${++n}`) : text;
  };

  beforeAll(async () => {
    db = await openTestStorage(dialect);
    ada = (await db.storage.users.create({ email: `ada-${dialect}@example.com`, displayName: 'Ada' })).id;
  });
  afterAll(() => db.dispose());

  describe('sessions', () => {
    it('are found by digest while they live, and not after', async () => {
      const now = new Date();
      const digest = freshDigest();
      await db.storage.webSessions.create(
        { digest, userId: ada, csrfSecret: 'csrf', expiresAt: minutesFrom(now, 10) },
        now,
      );
      expect(await db.storage.webSessions.findLive(digest, now)).toMatchObject({
        digest,
        userId: ada,
        csrfSecret: 'csrf',
      });
      expect(await db.storage.webSessions.findLive(digest, minutesFrom(now, 11))).toBeNull();

      await db.storage.webSessions.extend(digest, minutesFrom(now, 20));
      expect(await db.storage.webSessions.findLive(digest, minutesFrom(now, 11))).not.toBeNull();

      await db.storage.webSessions.delete(digest);
      expect(await db.storage.webSessions.findLive(digest, now)).toBeNull();
    });

    it('may belong to no one yet (a signed-out visitor filling a form)', async () => {
      const digest = freshDigest();
      await db.storage.webSessions.create({
        digest,
        userId: null,
        csrfSecret: 'x',
        expiresAt: minutesFrom(new Date(), 5),
      });
      expect(await db.storage.webSessions.findLive(digest)).toMatchObject({ userId: null });
    });

    it('go with their account', async () => {
      const bob = (await db.storage.users.create({ email: `bob-${dialect}@example.com`, displayName: 'Bob' }))
        .id;
      const digest = freshDigest();
      await db.storage.webSessions.create({
        digest,
        userId: bob,
        csrfSecret: 'x',
        expiresAt: minutesFrom(new Date(), 5),
      });
      await db.query(sql('DELETE FROM users WHERE id = ?'), [bob]);
      expect(await db.storage.webSessions.findLive(digest)).toBeNull();
    });
  });

  describe('sign-in links', () => {
    it('sign in once, before they expire; concurrent uses get one success', async () => {
      const now = new Date();
      const digest = freshDigest();
      await db.storage.signInLinks.create({ digest, userId: ada, expiresAt: minutesFrom(now, 15) }, now);
      const uses = await Promise.all(
        Array.from({ length: 5 }, () => db.storage.signInLinks.consume(digest, now)),
      );
      expect(uses.filter((user) => user === ada)).toHaveLength(1);
      expect(uses.filter((user) => user === null)).toHaveLength(4);
    });

    it('refuse an expired or unknown link', async () => {
      const now = new Date();
      const digest = freshDigest();
      await db.storage.signInLinks.create({ digest, userId: ada, expiresAt: minutesFrom(now, 15) }, now);
      expect(await db.storage.signInLinks.consume(digest, minutesFrom(now, 16))).toBeNull();
      expect(await db.storage.signInLinks.consume(freshDigest(), now)).toBeNull();
    });
  });

  describe('sign-in failures', () => {
    it('are counted per email within a window, taken back one by one, and cleared', async () => {
      const email = freshDigest();
      const other = freshDigest();
      const start = new Date();
      const longAgo = minutesFrom(start, -60);
      await db.storage.signInFailures.record(email, minutesFrom(start, -20), longAgo);
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push(await db.storage.signInFailures.record(email, start, longAgo));
      await db.storage.signInFailures.record(other, start, longAgo);

      expect(await db.storage.signInFailures.countSince(email, minutesFrom(start, -15))).toBe(3);
      await db.storage.signInFailures.remove(ids[0]);
      expect(await db.storage.signInFailures.countSince(email, minutesFrom(start, -15))).toBe(2);
      await db.storage.signInFailures.clear(email);
      expect(await db.storage.signInFailures.countSince(email, longAgo)).toBe(0);
      expect(await db.storage.signInFailures.countSince(other, longAgo)).toBe(1);
    });
  });

  describe('passwords', () => {
    it('are kept apart from the user, found by email', async () => {
      expect(await db.storage.users.findPasswordHash(`ADA-${dialect}@example.com`)).toEqual({
        userId: ada,
        passwordHash: null,
      });
      await db.storage.users.setPasswordHash(ada, '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA');
      expect(await db.storage.users.findPasswordHash(`ada-${dialect}@example.com`)).toEqual({
        userId: ada,
        passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
      });
      expect(Object.keys((await db.storage.users.findById(ada)) ?? {})).not.toContain('passwordHash');
      expect(await db.storage.users.findPasswordHash('nobody@example.com')).toBeNull();
    });
  });
});
