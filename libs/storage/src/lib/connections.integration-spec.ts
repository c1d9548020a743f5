import type { QueryRunner } from 'typeorm';
import { ConnectionNamesSqlite1796000000000 } from './migrations/sqlite/1796000000000-connection-names';
import { ConnectionNamesPostgres1796000000000 } from './migrations/postgres/1796000000000-connection-names';
import { openTestStorage, type TestStorage } from './testing';

describe.each(['sqlite', 'postgres'] as const)('connections on %s', (dialect) => {
  let db: TestStorage;
  let ada: string;
  let bob: string;

  beforeAll(async () => {
    db = await openTestStorage(dialect);
    ada = (await db.storage.users.create({ email: `ada-${dialect}@example.com`, displayName: 'Ada' })).id;
    bob = (await db.storage.users.create({ email: `bob-${dialect}@example.com`, displayName: 'Bob' })).id;
  });
  afterAll(() => db.dispose());

  const mailbox = {
    family: 'email',
    provider: 'imap',
    name: 'Work mail',
    settings: { imap_host: 'mail.example.com', imap_port: 993 },
    sealedSecrets: 'v1:opaque',
    status: 'ok' as const,
    lastError: null,
  };

  it('keeps a connection for its account, in the order added, and hides it from every other account', async () => {
    const first = await db.storage.connections.create(ada, mailbox);
    const second = await db.storage.connections.create(ada, { ...mailbox, name: 'Home mail' });
    expect(first).toMatchObject({ ...mailbox, userId: ada, id: expect.stringMatching(/^con_/) });
    expect((await db.storage.connections.list(ada)).map((c) => c.name)).toEqual(['Work mail', 'Home mail']);

    expect(await db.storage.connections.list(bob)).toEqual([]);
    expect(await db.storage.connections.get(bob, first.id)).toBeNull();
    expect(await db.storage.connections.update(bob, first.id, { name: 'stolen' })).toBeNull();
    expect(await db.storage.connections.delete(bob, first.id)).toBe(false);
    expect((await db.storage.connections.get(ada, first.id))?.name).toBe('Work mail');

    expect(await db.storage.connections.delete(ada, second.id)).toBe(true);
    expect(await db.storage.connections.get(ada, second.id)).toBeNull();
  });

  it('changes only the given fields, and always moves updated_at forward', async () => {
    const created = await db.storage.connections.create(ada, { ...mailbox, name: 'Old mail' });
    const changed = await db.storage.connections.update(ada, created.id, {
      status: 'error',
      lastError: 'IMAP login failed',
    });
    expect(changed).toMatchObject({
      name: 'Old mail',
      settings: mailbox.settings,
      status: 'error',
      lastError: 'IMAP login failed',
    });
    expect(changed!.updatedAt.getTime()).toBeGreaterThan(created.updatedAt.getTime());
    const renamed = await db.storage.connections.update(ada, created.id, {
      name: 'Mail',
      settings: { imap_port: 143 },
    });
    expect(renamed).toMatchObject({ name: 'Mail', settings: { imap_port: 143 }, sealedSecrets: 'v1:opaque' });
  });

  it('keeps one name per account and family, whatever its case, and the same name in another family or account', async () => {
    const carol = (await db.storage.users.create({ email: `carol-${dialect}@example.com`, displayName: 'C' }))
      .id;
    await db.storage.connections.create(carol, { ...mailbox, name: 'Personal' });
    await expect(
      db.storage.connections.create(carol, { ...mailbox, name: 'PERSONAL' }),
    ).rejects.toMatchObject({
      code: 'conflict',
      status: 409,
    });
    const calendar = await db.storage.connections.create(carol, {
      ...mailbox,
      family: 'calendar',
      name: 'Personal',
    });
    expect(calendar.name).toBe('Personal');
    await db.storage.connections.create(bob, { ...mailbox, name: 'Personal' });
    const other = await db.storage.connections.create(carol, { ...mailbox, name: 'Work' });
    await expect(db.storage.connections.update(carol, other.id, { name: 'personal' })).rejects.toMatchObject({
      code: 'conflict',
    });
  });

  it('makes the first connection of a family its default, moves the default on request and on removal', async () => {
    const dan = (await db.storage.users.create({ email: `dan-${dialect}@example.com`, displayName: 'D' })).id;
    const first = await db.storage.connections.create(dan, { ...mailbox, name: 'One' });
    const second = await db.storage.connections.create(dan, { ...mailbox, name: 'Two' });
    const third = await db.storage.connections.create(dan, { ...mailbox, name: 'Three' });
    const calendar = await db.storage.connections.create(dan, {
      ...mailbox,
      family: 'calendar',
      name: 'Cal',
    });
    const defaults = async () =>
      (await db.storage.connections.list(dan)).filter((c) => c.isDefault).map((c) => c.name);
    expect(await defaults()).toEqual(['One', 'Cal']);

    expect(await db.storage.connections.makeDefault(dan, third.id)).toBe(true);
    expect(await defaults()).toEqual(['Three', 'Cal']);
    expect(await db.storage.connections.makeDefault(bob, first.id)).toBe(false);

    await db.storage.connections.delete(dan, third.id);
    expect(await defaults()).toEqual(['One', 'Cal']);
    await db.storage.connections.delete(dan, second.id);
    expect(await defaults()).toEqual(['One', 'Cal']);
    expect(calendar.isDefault).toBe(true);

    const made = await db.storage.connections.create(dan, { ...mailbox, name: 'New', isDefault: true });
    expect(made.isDefault).toBe(true);
    expect(await defaults()).toEqual(['Cal', 'New']);
  });

  it('migrates connections from before names: the first of each family its default, a taken name numbered', async () => {
    const migration =
      dialect === 'sqlite'
        ? new ConnectionNamesSqlite1796000000000()
        : new ConnectionNamesPostgres1796000000000();
    const runner = { query: (sql: string) => db.query(sql) } as unknown as QueryRunner;
    const erin = (await db.storage.users.create({ email: `erin-${dialect}@example.com`, displayName: 'E' }))
      .id;
    await migration.down(runner);
    try {
      const insert = (id: string, family: string, name: string) =>
        db.query(
          dialect === 'sqlite'
            ? `INSERT INTO connections (id, user_id, family, provider, name, settings, sealed_secrets, status, created_at, updated_at)
               VALUES ('${id}', '${erin}', '${family}', 'imap', '${name}', '{}', 'v1:x', 'ok', '2026-01-01 00:00:00', '2026-01-01 00:00:00')`
            : `INSERT INTO connections (id, user_id, family, provider, name, settings, sealed_secrets, status, created_at, updated_at)
               VALUES ('${id}', '${erin}', '${family}', 'imap', '${name}', '{}', 'v1:x', 'ok', now(), now())`,
        );
      await insert('con_m1', 'email', 'IMAP mailbox');
      await insert('con_m2', 'email', 'IMAP mailbox');
      await insert('con_m3', 'email', 'imap MAILBOX');
      await insert('con_m4', 'calendar', 'IMAP mailbox');
    } finally {
      await migration.up(runner);
    }
    const migrated = await db.storage.connections.list(erin);
    expect(migrated.map((c) => [c.id, c.name, c.isDefault])).toEqual([
      ['con_m1', 'IMAP mailbox', true],
      ['con_m2', 'IMAP mailbox 2', false],
      ['con_m3', 'imap MAILBOX 3', false],
      ['con_m4', 'IMAP mailbox', true],
    ]);
  });
});
