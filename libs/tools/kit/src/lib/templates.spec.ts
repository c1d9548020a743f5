import type { Intent, IntentContext } from './intents';
import { IntentMatcher, readRequest, sayable, Speller } from './templates';

const echo = (intent: string, templates: string[], extra: Partial<Intent> = {}): Intent => ({
  intent,
  templates,
  examples: [],
  act: (slots) => ({ kind: 'text', text: JSON.stringify(slots) }),
  ...extra,
});

const context: IntentContext = {
  now: new Date('2026-01-01T00:00:00Z'),
  timeZone: 'UTC',
  // Days are the model's to read: here "tomorrow" and "friday" are days, nothing else.
  when: (words) =>
    /^(?:on )?(?:tomorrow|friday)$/.test(words)
      ? { start: 's', end: 'e', hasTime: false, startDay: 'd', endDay: 'd' }
      : undefined,
  known: () => undefined,
  last: () => undefined,
};

const slotsOf = (matcher: IntentMatcher, text: string) => {
  const match = matcher.match(text, context);
  return match && { intent: match.intent, slots: match.slots };
};

describe('sentence templates', () => {
  const matcher = new IntentMatcher([
    {
      rules: { mail: '(mail|email|emails)' },
      intents: [
        echo('mail.from', ['[any] [new] <mail> from {sender} [about {topic}] [{when}]']),
        echo('calendar.day', ["(what's|what is) on my (calendar|agenda) [for] {when}"]),
      ],
    },
  ]);

  it('reads alternatives, optional words, expansion rules and slots, stop words out of a topic', () => {
    expect(slotsOf(matcher, 'any new email from the garage about a fee')).toEqual({
      intent: 'mail.from',
      slots: { sender: 'garage', topic: 'fee' },
    });
    expect(slotsOf(matcher, 'mail from Sam tomorrow')).toEqual({
      intent: 'mail.from',
      slots: { sender: 'Sam', when: 'tomorrow' },
    });
    expect(slotsOf(matcher, 'what is on my agenda for friday')).toEqual({
      intent: 'calendar.day',
      slots: { when: 'friday' },
    });
  });

  it('sets politeness, slang and one-letter typos aside, and keeps a slot word on a word’s edge', () => {
    expect(slotsOf(matcher, "hey can you pls tell me what's on my calender tmrw thanks")).toEqual({
      intent: 'calendar.day',
      slots: { when: 'tomorrow' },
    });
    expect(slotsOf(matcher, 'any new emial from sam')?.slots).toEqual({ sender: 'sam' });
    // A day the model does not read is no day: the words stay the slot's before it.
    expect(slotsOf(matcher, 'mail from sam someday')?.slots).toEqual({ sender: 'sam someday' });
  });

  it('corrects only meaning words, never to a word of another first letter', () => {
    const speller = new Speller(['lights', 'email']);
    expect(speller.correct('emial')).toBe('email');
    expect(speller.correct('calender')).toBe('calendar');
    expect(speller.correct('flights')).toBe('flights');
    expect(speller.correct('unbox')).toBe('unbox'); // one letter from "inbox", but its first
    expect(speller.correct('locker')).toBe('locker');
    expect(readRequest('Hey, could you check my inbox please?')).toBe('check my inbox');
    expect(readRequest('hey there')).toBe('hey there');
  });

  it('prefers the template that explains most words, a follow-up only after its intent, a catch-all last', () => {
    const book = new IntentMatcher([
      {
        intents: [
          echo('question', ['(what|when) {text}'], { fallback: true }),
          echo('read.it', ['read it'], { after: ['mail.from'] }),
          echo('thing', ['what is my {thing}']),
        ],
      },
    ]);
    expect(book.match('what is my locker code', context)?.intent).toBe('thing');
    expect(book.match('what about it', context)?.intent).toBe('question');
    expect(book.match('read it', context)).toBeUndefined();
    expect(book.match('read it', { ...context, previous: { intent: 'mail.from', slots: {} } })?.intent).toBe(
      'read.it',
    );
  });

  it('refuses a template with an unknown slot kind or rule', () => {
    expect(() => new IntentMatcher([{ intents: [echo('x', ['find {colour}'])] }])).toThrow(
      /unknown slot kind "colour"/,
    );
    expect(() => new IntentMatcher([{ intents: [echo('x', ['find <nothing>'])] }])).toThrow(
      /unknown rule <nothing>/,
    );
  });

  it('says a template as a request: first choices, no optional words, a sample in each slot', () => {
    expect(sayable("(what's|what is) on my <calendar> [for] {when}")).toBe("what's on my calendar tomorrow");
    expect(sayable('[any] <mail> from {sender} [about {topic}]', { mail: '(mail|email)' })).toBe(
      'mail from Sam',
    );
  });
});
