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
    const created = await db.storage.connections.create(ada, mailbox);
    const changed = await db.storage.connections.update(ada, created.id, {
      status: 'error',
      lastError: 'IMAP login failed',
    });
    expect(changed).toMatchObject({
      name: 'Work mail',
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
});
