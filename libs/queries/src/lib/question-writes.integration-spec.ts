import { setImmediate as nextTurn } from 'node:timers/promises';
import { newId, type Storage } from '@assistant/storage';
import { openTestStorage } from '@assistant/storage/testing';
import { QuestionWrites, type Question } from './question-writes';

describe('QuestionWrites on SQLite', () => {
  let storage: Storage;
  let dispose: () => Promise<void>;
  let userId: string;
  const errors: unknown[] = [];
  const logger = { error: (line: unknown) => void errors.push(line) };

  beforeAll(async () => {
    ({ storage, dispose } = await openTestStorage('sqlite'));
    userId = (await storage.users.create({ email: 'writes@example.com', displayName: 'W' })).id;
  });
  afterEach(() => {
    jest.restoreAllMocks();
    expect(errors.splice(0)).toEqual([]);
  });
  afterAll(async () => dispose());

  const question = (): Question => ({
    userId,
    queryId: newId('query'),
    discussionId: newId('discussion'),
    newDiscussionTitle: 'New',
    questionId: newId('message'),
    text: 'the question',
  });
  const stored = async (q: Question) => ({
    discussion: (await storage.discussions.get(userId, q.discussionId)) !== null,
    messages: (await storage.discussions.recentMessages(userId, q.discussionId, 5)).map((m) => m.id),
  });

  it("waits for the model's first event, then stores the discussion with the question", async () => {
    const create = jest.spyOn(storage.discussions, 'createWithMessage');
    const q = question();
    const writes = new QuestionWrites(storage, logger, q, () => undefined, 60_000);
    await nextTurn();
    await nextTurn();
    expect(create).not.toHaveBeenCalled();
    writes.modelAnswered();
    expect(await writes.questionStored).toBe(true);
    expect(await stored(q)).toEqual({ discussion: true, messages: [q.questionId] });
  });

  it('starts anyway once the model has been silent for a while (it is thinking)', async () => {
    const q = question();
    const began = Date.now();
    const writes = new QuestionWrites(storage, logger, q, () => undefined, 30);
    expect(await writes.questionStored).toBe(true);
    expect(Date.now() - began).toBeGreaterThanOrEqual(25);
    expect(await stored(q)).toEqual({ discussion: true, messages: [q.questionId] });
  });

  it('tells of a question that could not be stored', async () => {
    // In a new discussion (stored with it) and in one that exists.
    jest.spyOn(storage.discussions, 'createWithMessage').mockRejectedValue(new Error('disk full'));
    jest.spyOn(storage.discussions, 'appendMessage').mockRejectedValue(new Error('disk full'));
    for (const q of [question(), { ...question(), newDiscussionTitle: undefined }]) {
      let failed = 0;
      const writes = new QuestionWrites(storage, logger, q, () => failed++, 60_000);
      writes.start();
      expect(await writes.questionStored).toBe(false);
      expect(failed).toBe(1);
      expect(errors.splice(0)).toEqual([expect.objectContaining({ msg: 'could not store the question' })]);
    }
  });

  it('writes nothing for a query that did not start after all', async () => {
    const q = question();
    const writes = new QuestionWrites(storage, logger, q, () => undefined, 10);
    writes.abandon();
    writes.modelAnswered();
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(await stored(q)).toEqual({ discussion: false, messages: [] });
  });
});
