import { openTestStorage, type TestStorage } from './testing';
import type { Storage } from './storage';
import { newId } from './ids';
import { decodeCursor, encodeCursor } from './paging';

describe.each(['sqlite', 'postgres'] as const)('storage on %s', (dialect) => {
  let storage: Storage;
  let query: TestStorage['query'];
  let dispose: () => Promise<void>;
  let userId: string;

  beforeAll(async () => {
    ({ storage, query, dispose } = await openTestStorage(dialect));
    userId = (await storage.users.create({ email: `${dialect}@example.com`, displayName: 'T' })).id;
  });
  afterAll(async () => dispose());

  it('answers the same full-text questions the same way on both dialects', async () => {
    const contents = [
      "My sister's birthday is on March 3",
      'The plumber comes on Tuesday morning',
      'Running shoes size 44, bought in Lyon',
      'Café opening hours: 8 to 18',
    ];
    const ids: string[] = [];
    for (const content of contents)
      ids.push((await storage.memories.create(userId, { content, tags: ['fact'], source: 'user' })).id);
    const search = async (q: string) =>
      (await storage.memories.list(userId, { limit: 50, q })).items.map((m) => contents[ids.indexOf(m.id)]);

    expect(await search('birthdays')).toEqual([contents[0]]);
    expect(await search('plumber tuesday')).toEqual([contents[1]]);
    expect(await search('run shoe')).toEqual([contents[2]]);
    expect(await search('café')).toEqual([contents[3]]);
    expect(await search('when is it?')).toEqual([]);
    expect(await search('"; DROP TABLE memories; --')).toEqual([]);
    expect(await search('fact')).toHaveLength(4);
    expect(await search('OR AND NOT NEAR *')).toEqual([]);
  });

  it('keeps the search index in step with edits and deletes', async () => {
    const m = await storage.memories.create(userId, { content: 'The gate code is 4711', source: 'user' });
    expect((await storage.memories.list(userId, { limit: 5, q: 'gate' })).items).toHaveLength(1);
    await storage.memories.update(userId, m.id, { content: 'The door code is 4711' });
    expect((await storage.memories.list(userId, { limit: 5, q: 'gate' })).items).toHaveLength(0);
    expect((await storage.memories.list(userId, { limit: 5, q: 'door' })).items).toHaveLength(1);
    await storage.memories.delete(userId, m.id);
    expect((await storage.memories.list(userId, { limit: 5, q: 'door' })).items).toHaveLength(0);
  });

  it('deletes a discussion with its messages and keeps message order', async () => {
    const d = await storage.discussions.create(userId, 'Trip');
    for (const text of ['one', 'two', 'three'])
      await storage.discussions.appendMessage(userId, d.id, { role: 'user', text });
    const page = await storage.discussions.listMessages(userId, d.id, { limit: 2 });
    expect(page.items.map((m) => m.text)).toEqual(['one', 'two']);
    const rest = await storage.discussions.listMessages(userId, d.id, {
      limit: 2,
      cursor: page.nextCursor ?? undefined,
    });
    expect(rest.items.map((m) => m.text)).toEqual(['three']);
    expect((await storage.discussions.get(userId, d.id))?.messageCount).toBe(3);
    expect(await storage.discussions.delete(userId, d.id)).toBe(true);
    const count = await query(`SELECT COUNT(*) AS n FROM messages WHERE discussion_id = '${d.id}'`);
    expect(Number(count[0].n)).toBe(0);
  });

  it('creates a discussion with its first message (a query that starts one)', async () => {
    const id = newId('discussion');
    const question = await storage.discussions.createWithMessage(userId, 'Started', id, {
      role: 'user',
      text: 'hello',
      queryId: 'qry_1',
    });
    expect(await storage.discussions.get(userId, id)).toMatchObject({ title: 'Started', messageCount: 1 });
    const page = await storage.discussions.listMessages(userId, id, { limit: 5 });
    expect(page.items).toEqual([question]);
    expect(question).toMatchObject({
      discussionId: id,
      userId,
      role: 'user',
      text: 'hello',
      queryId: 'qry_1',
    });
  });

  it('stores times in UTC with milliseconds', async () => {
    const before = Date.now();
    const d = await storage.discussions.create(userId, 'Clock');
    const read = await storage.discussions.get(userId, d.id);
    expect(read?.createdAt.getTime()).toBe(d.createdAt.getTime());
    expect(Math.abs((read?.createdAt.getTime() ?? 0) - before)).toBeLessThan(5_000);
  });
});

describe('ids and cursors', () => {
  it('sorts ids in creation order, even within one millisecond', () => {
    const ids = Array.from({ length: 2000 }, () => newId('memory'));
    expect([...ids].sort()).toEqual(ids);
    expect(ids[0]).toMatch(/^mem_[0-9a-z]{26}$/);
  });

  it('accepts only cursors it made, for the right kind of id', () => {
    const id = newId('memory');
    expect(decodeCursor('memory', encodeCursor(id))).toBe(id);
    expect(() => decodeCursor('discussion', encodeCursor(id))).toThrow(/cursor/);
    expect(() => decodeCursor('memory', 'garbage')).toThrow(/cursor/);
    expect(() => decodeCursor('memory', `${encodeCursor(id)}=`)).toThrow(/cursor/);
  });
});

describe.each(['sqlite', 'postgres'] as const)('memory recall on %s', (dialect) => {
  it('ranks memories that share any word with the question, best first, for one user only', async () => {
    const { storage, dispose } = await openTestStorage(dialect);
    try {
      const user = await storage.users.create({ email: 'r@example.com', displayName: 'R' });
      const other = await storage.users.create({ email: 'o@example.com', displayName: 'O' });
      await storage.memories.create(user.id, { content: 'The dentist is on Friday', source: 'user' });
      const sister = await storage.memories.create(user.id, {
        content: "My sister's birthday is on March 3; my sister loves tulips",
        source: 'user',
      });
      const birthday = await storage.memories.create(user.id, {
        content: 'Birthday party supplies are in the attic',
        source: 'user',
      });
      await storage.memories.create(other.id, { content: "Other sister's birthday", source: 'user' });
      const recalled = await storage.memories.recall(user.id, "when is my sister's birthday?", 5);
      expect(recalled.map((m) => m.id)).toEqual([sister.id, birthday.id]);
      expect(await storage.memories.recall(user.id, 'the and of', 5)).toEqual([]);
      expect((await storage.memories.recall(user.id, 'birthday', 1)).length).toBe(1);
    } finally {
      await dispose();
    }
  });
});

describe.each(['sqlite', 'postgres'] as const)('messages appended at the same time on %s', (dialect) => {
  it('all land, and the discussion counts every one (SQLite has one connection: its transactions take turns)', async () => {
    const { storage, dispose } = await openTestStorage(dialect);
    try {
      const user = await storage.users.create({ email: `busy-${dialect}@example.com`, displayName: 'Busy' });
      const discussions = await Promise.all(
        Array.from({ length: 4 }, (_, i) => storage.discussions.create(user.id, `Busy ${i}`)),
      );
      await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          storage.discussions.appendMessage(user.id, discussions[i % 4].id, {
            role: 'user',
            text: `message ${i}`,
          }),
        ),
      );
      for (const discussion of discussions) {
        expect((await storage.discussions.get(user.id, discussion.id))?.messageCount).toBe(6);
      }
    } finally {
      await dispose();
    }
  });
});
