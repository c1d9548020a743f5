import {
  createDiscussionSchema,
  createMemorySchema,
  createQuerySchema,
  createTokenSchema,
  searchablePageQuerySchema,
  updateDiscussionSchema,
  updateMemorySchema,
} from '../index';

const LONE = 'birthday \ud800 party';
const PAIRED = 'birthday 🎂 party';

/** Every free-text field a client sends, as [schema, a valid body with the text in it, the field's path]. */
const TEXT_FIELDS = [
  ['query text', createQuerySchema, (t: string) => ({ text: t }), 'text'],
  ['memory content', createMemorySchema, (t: string) => ({ content: t }), 'content'],
  ['memory content (edit)', updateMemorySchema, (t: string) => ({ content: t }), 'content'],
  ['memory tag', createMemorySchema, (t: string) => ({ content: 'c', tags: ['ok', t] }), 'tags.1'],
  ['memory tag (edit)', updateMemorySchema, (t: string) => ({ tags: [t] }), 'tags.0'],
  ['discussion title', createDiscussionSchema, (t: string) => ({ title: t }), 'title'],
  ['discussion title (rename)', updateDiscussionSchema, (t: string) => ({ title: t }), 'title'],
  ['token name', createTokenSchema, (t: string) => ({ name: t, scopes: ['read:account'] }), 'name'],
  ['search text', searchablePageQuerySchema, (t: string) => ({ q: t }), 'q'],
] as const;

describe('free-text fields', () => {
  it.each(TEXT_FIELDS)('%s refuses a lone surrogate, naming the field', (_, schema, body, path) => {
    const result = schema.safeParse(body(LONE));
    expect(result.success).toBe(false);
    const issue = result.error?.issues.find((i) => i.path.join('.') === path);
    expect(issue?.message).toMatch(/must be valid Unicode text/);
  });

  it.each(TEXT_FIELDS)('%s keeps characters outside the basic plane', (_, schema, body) => {
    expect(schema.safeParse(body(PAIRED)).success).toBe(true);
  });

  it('refuses a low surrogate alone and a pair in the wrong order too', () => {
    for (const text of ['\udc00', 'a\udfffb', '\ude00\ud83c'])
      expect(createQuerySchema.safeParse({ text }).success).toBe(false);
  });
});
