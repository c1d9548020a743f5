import {
  claimPairingCodeSchema,
  createConnectionSchema,
  createDiscussionSchema,
  createMemorySchema,
  createQuerySchema,
  createTokenSchema,
  searchablePageQuerySchema,
  updateAccountSchema,
  updateConnectionSchema,
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
  [
    'device name',
    claimPairingCodeSchema,
    (t: string) => ({ code: 'ABCD-EFGH', device_name: t }),
    'device_name',
  ],
  [
    'connection name',
    createConnectionSchema,
    (t: string) => ({ family: 'web', provider: 'p', name: t }),
    'name',
  ],
  ['connection name (rename)', updateConnectionSchema, (t: string) => ({ name: t }), 'name'],
] as const;

/**
 * Names, titles, tags and the ids and names a body refers to: one line, shown in lists and menus or looked up,
 * where no control character makes sense (not even at either end), as [schema, a valid body with the text in it,
 * the field's path].
 */
const LINE_FIELDS = [
  ['memory tag', createMemorySchema, (t: string) => ({ content: 'c', tags: ['ok', t] }), 'tags.1'],
  ['memory tag (edit)', updateMemorySchema, (t: string) => ({ tags: [t] }), 'tags.0'],
  ['discussion title', createDiscussionSchema, (t: string) => ({ title: t }), 'title'],
  ['discussion title (rename)', updateDiscussionSchema, (t: string) => ({ title: t }), 'title'],
  ['token name', createTokenSchema, (t: string) => ({ name: t, scopes: ['read:account'] }), 'name'],
  [
    'device name',
    claimPairingCodeSchema,
    (t: string) => ({ code: 'ABCD-EFGH', device_name: t }),
    'device_name',
  ],
  [
    'connection name',
    createConnectionSchema,
    (t: string) => ({ family: 'web', provider: 'p', name: t }),
    'name',
  ],
  ['connection name (rename)', updateConnectionSchema, (t: string) => ({ name: t }), 'name'],
  [
    'query discussion_id',
    createQuerySchema,
    (t: string) => ({ text: 'hi', discussion_id: t }),
    'discussion_id',
  ],
  ['query model', createQuerySchema, (t: string) => ({ text: 'hi', model: t }), 'model'],
  ['query tool', createQuerySchema, (t: string) => ({ text: 'hi', tools: [t] }), 'tools.0'],
  [
    'auto-approved tool',
    updateAccountSchema,
    (t: string) => ({ auto_approved_tools: [t] }),
    'auto_approved_tools.0',
  ],
] as const;

/** Free text that may run over lines: the rest of the text fields. */
const MULTILINE_FIELDS = [
  ['query text', createQuerySchema, (t: string) => ({ text: t }), 'text'],
  ['memory content', createMemorySchema, (t: string) => ({ content: t }), 'content'],
  ['memory content (edit)', updateMemorySchema, (t: string) => ({ content: t }), 'content'],
  ['search text', searchablePageQuerySchema, (t: string) => ({ q: t }), 'q'],
] as const;

const messageAt = (
  result: { error?: { issues: { path: PropertyKey[]; message: string }[] } },
  path: string,
) => result.error?.issues.find((i) => i.path.join('.') === path)?.message;

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

describe('control characters', () => {
  it.each([...MULTILINE_FIELDS, ...LINE_FIELDS])(
    '%s refuses U+0000, which PostgreSQL cannot store, naming the field',
    (_, schema, body, path) => {
      const result = schema.safeParse(body('birthday\u0000party'));
      expect(result.success).toBe(false);
      expect(messageAt(result, path)).toMatch(/must not contain/);
    },
  );

  it.each(LINE_FIELDS)('%s refuses every other control character too', (_, schema, body, path) => {
    for (const text of [
      'two\nlines',
      'a\ttab',
      'a\rreturn',
      'escape \u001b[31m',
      'bell\u0007',
      'del\u007f',
      'c1\u0085',
    ]) {
      const result = schema.safeParse(body(text));
      expect(result.success).toBe(false);
      expect(messageAt(result, path)).toMatch(/must not contain control characters/);
    }
  });

  it.each(MULTILINE_FIELDS)('%s keeps line breaks and tabs', (_, schema, body) => {
    expect(schema.safeParse(body('first line\r\n\tsecond line\nthird')).success).toBe(true);
  });
});
