import { customAnswer, customPhrases, parseInput } from './custom-family';

/** As the built-in model's phrase book hands a request to the rules: politeness and final stops stripped. */
function understand(text: string) {
  const normalised = text.replace(/^please\s+/i, '').replace(/[.!]+$/, '');
  for (const rule of customPhrases) {
    for (const pattern of rule.patterns) {
      const match = normalised.match(pattern);
      if (match) return rule.act(match, normalised, { now: new Date(0), timeZone: 'UTC' });
    }
  }
  return undefined;
}

describe('the custom family’s phrasing: "run <tool> with …"', () => {
  const examples = customPhrases.flatMap((rule) => rule.examples);

  it.each(examples)('understands "%s"', (example) => {
    expect(understand(example)).toMatchObject({ kind: 'tool', tool: expect.stringMatching(/^custom_/) });
  });

  it('calls the tool by its name, custom_ or not, with JSON or key=value input', () => {
    expect(understand('run custom_order_status with id=A-17')).toEqual({
      kind: 'tool',
      tool: 'custom_order_status',
      input: { id: 'A-17' },
    });
    expect(understand('run order_status with {"id": "A-17", "lines": [1, 2]}')).toEqual({
      kind: 'tool',
      tool: 'custom_order_status',
      input: { id: 'A-17', lines: [1, 2] },
    });
    expect(understand('Please run custom_greet with name="Ada Lovelace", polite=true.')).toEqual({
      kind: 'tool',
      tool: 'custom_greet',
      input: { name: 'Ada Lovelace', polite: true },
    });
    expect(understand("call custom_order_status with id=42 and note='leave it at the door'")).toEqual({
      kind: 'tool',
      tool: 'custom_order_status',
      input: { id: 42, note: 'leave it at the door' },
    });
    expect(understand('run custom_ping')).toEqual({ kind: 'tool', tool: 'custom_ping', input: {} });
  });

  it('leaves other requests alone, and says what is wrong with an input it cannot read', () => {
    expect(understand('run the dishwasher')).toBeUndefined();
    expect(understand('remember that I run on Sundays')).toBeUndefined();
    expect(understand('run custom_greet with {"name": ')).toMatchObject({
      kind: 'text',
      text: expect.stringMatching(/^I couldn't read the input for custom_greet: it is not valid JSON/),
    });
    expect(understand('run custom_greet with hello world')).toEqual({
      kind: 'text',
      text: 'I couldn\'t read the input for custom_greet: "hello world" is not a key=value pair. Give it as JSON ({"id": 42}) or as key=value pairs (id=42 name="Ada").',
    });
    expect(parseInput('[1, 2]')).toBe('it is not a JSON object');
    expect(parseInput('a="quoted \\"word\\"" b=null c=-1.5 d=x:y')).toEqual({
      a: 'quoted "word"',
      b: null,
      c: -1.5,
      d: 'x:y',
    });
  });
});

describe('the custom family’s phrasing, given hostile text', () => {
  it('reads quoted text as JSON does, and keeps a backslash JSON knows no escape for as typed', () => {
    expect(parseInput('name="a\\x"')).toEqual({ name: 'a\\x' });
    expect(parseInput('a="tab\\tquote\\"end\\u00e9" b="\\u12" c="\\"')).toEqual({
      a: 'tab\tquote"endé',
      b: '\\u12',
      c: '"\\"', // no closing quote: the word as typed
    });
    // Numbers as JSON writes them; anything a number would change (leading zeros, too many digits) stays text.
    expect(parseInput('a=01 b=007 c=1.50 d=12345678901234567890 e=-0 f=1e3 g=2.5')).toEqual({
      a: '01',
      b: '007',
      c: '1.50',
      d: '12345678901234567890',
      e: '-0',
      f: '1e3',
      g: 2.5,
    });
  });

  it('never throws, whatever follows "with"', () => {
    const hostile = [
      'name="a\\x"',
      'id=01',
      'x="\\ud800"',
      'x="unterminated',
      "x='unterminated",
      'x=',
      '=x',
      '{"a": "\\x"}',
      '{"__proto__": {"polluted": true}}',
      '[[[[[[[[[[',
      '{'.repeat(5000),
      `a="${'\\'.repeat(3001)}"`,
      'a=1 '.repeat(2000),
      '\u0000=\u0000',
    ];
    for (const given of hostile) {
      const action = understand(`run custom_greet with ${given}`);
      expect(action).toMatchObject({ kind: expect.stringMatching(/^(?:tool|text)$/) });
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('what the built-in model says once a custom tool answered', () => {
  it('puts the output in a plain sentence', () => {
    expect(customAnswer('custom_order_status', { id: 'A-17', status: 'shipped' })).toBe(
      'custom_order_status answered with id A-17 and status shipped.',
    );
    expect(customAnswer('custom_greet', 'Hello, Ada')).toBe('custom_greet says: Hello, Ada.');
    expect(customAnswer('custom_count', 3)).toBe('custom_count says: 3.');
    expect(customAnswer('custom_list', { items: ['tea', 'milk'], total: 2 })).toBe(
      'custom_list answered with items tea and milk and total 2.',
    );
    expect(customAnswer('custom_ping', null)).toBe('custom_ping is done; it returned nothing.');
    expect(customAnswer('custom_ping', {})).toBe('custom_ping answered with nothing.');
  });
});
