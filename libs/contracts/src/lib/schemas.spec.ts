import {
  createTokenSchema,
  updateMemorySchema,
  createMemorySchema,
  searchablePageQuerySchema,
  queryEventSchema,
  isTerminalEvent,
} from '../index';

describe('contract schemas', () => {
  it('defaults and bounds the page size', () => {
    expect(searchablePageQuerySchema.parse({})).toEqual({ limit: 20 });
    expect(searchablePageQuerySchema.parse({ limit: '100' }).limit).toBe(100);
    for (const limit of ['0', '101', 'x', '1.5'])
      expect(searchablePageQuerySchema.safeParse({ limit }).success).toBe(false);
    expect(searchablePageQuerySchema.safeParse({ sort: 'asc' }).success).toBe(false);
  });

  it('refuses unknown fields and empty content in memories', () => {
    expect(createMemorySchema.safeParse({ content: 'x', extra: 1 }).success).toBe(false);
    expect(createMemorySchema.safeParse({ content: '   ' }).success).toBe(false);
    expect(updateMemorySchema.safeParse({}).success).toBe(false);
    expect(updateMemorySchema.parse({ tags: ['a'] })).toEqual({ tags: ['a'] });
  });

  it('refuses token scopes that do not exist and expiry in the past', () => {
    expect(createTokenSchema.safeParse({ name: 'a', scopes: ['read:everything'] }).success).toBe(false);
    expect(createTokenSchema.safeParse({ name: 'a', scopes: [] }).success).toBe(false);
    expect(
      createTokenSchema.safeParse({ name: 'a', scopes: ['read:account'], expires_at: '2000-01-01T00:00:00Z' })
        .success,
    ).toBe(false);
    expect(
      createTokenSchema.safeParse({ name: 'a', scopes: ['read:account'], expires_at: '2999-01-01T00:00:00Z' })
        .success,
    ).toBe(true);
  });

  it('knows the SSE events and which of them end a stream', () => {
    const completed = queryEventSchema.parse({
      type: 'query.completed',
      sequence_number: 4,
      message_id: 'msg_1',
      text: 'hi',
      usage: { input_tokens: 1, output_tokens: 1 },
      finish_reason: 'stop',
    });
    expect(isTerminalEvent(completed)).toBe(true);
    expect(isTerminalEvent({ type: 'output_text.delta' })).toBe(false);
    expect(queryEventSchema.safeParse({ type: 'query.unknown', sequence_number: 1 }).success).toBe(false);
  });
});
