import { z } from 'zod';
import { connectTool, defineFamily, defineTool, type FamilyLanguage } from '@assistant/tool-kit';
import { fitInput } from './builtin-model';
import { fakeMemoryFamily, fakeMemoryTools } from '../../../testing/fake-memory-family';
import { runBuiltin } from '../../../testing/run-builtin';
import { normalise, PhraseBook } from './phrase-book';
import {
  answerFromToolResult,
  capabilities,
  familyAnswer,
  notUnderstood,
  toolWithheld,
  whatICanDo,
} from './answers';

/** A family with a topic but no phrasings, as an account would see one whose phrases are not written yet. */
const calendar = defineFamily({
  name: 'calendar',
  description: 'events',
  topic: { about: 'your calendar', keywords: ['calendar', 'meeting'] },
  providers: [],
  tools: [],
  phrases: [],
  answer: () => '',
});
const book = new PhraseBook([fakeMemoryFamily, calendar]);
const at = { now: new Date('2026-12-01T10:00:00Z'), timeZone: 'UTC' };
const memory = ['memory_save', 'memory_search'];

describe('the phrase book built from the families', () => {
  const examples = book.rules.flatMap((rule) => rule.examples.map((e) => [rule.intent, e] as const));

  it.each(examples)('%s: understands "%s"', (intent, example) => {
    expect(book.understand(example, at).intent).toBe(intent);
  });

  it("tries a family's topic words before any catch-all rule", () => {
    expect(book.understand('what is on my calendar tomorrow?', at)).toMatchObject({
      kind: 'family',
      family: 'calendar',
    });
    expect(book.understand('when is the party?', at)).toMatchObject({ kind: 'tool', tool: 'memory_search' });
    // Without the calendar family, the same words are only a question for the memories.
    expect(
      new PhraseBook([fakeMemoryFamily]).understand('what is on my calendar tomorrow?', at),
    ).toMatchObject({
      tool: 'memory_search',
    });
  });

  it('knows nothing of its own: without families it understands only conversation', () => {
    const empty = new PhraseBook([]);
    expect(empty.understand('remember that x is y', at).kind).toBe('unknown');
    expect(empty.understand('hello', at)).toMatchObject({ kind: 'help', greeting: true });
  });
});

describe('what the built-in model says', () => {
  it('puts a tool result in its family’s words, and a failure in its own', () => {
    expect(answerFromToolResult(book, 'memory_save', { content: 'x is y' }, false)).toBe('Saved: x is y.');
    expect(answerFromToolResult(book, 'memory_save', { error: 'database is down' }, true)).toBe(
      "I couldn't do that: database is down.",
    );
  });

  it('says what the run can do, from the offers of the tools it has', () => {
    expect(whatICanDo(book, memory)).toBe(
      'What I can do here: remember what you tell me and recall it later.',
    );
    expect(whatICanDo(book, ['memory_save', 'calendar_list_events'])).toMatch(
      /calendar_list_events, which a language model can use but I have no phrasings for/,
    );
    expect(whatICanDo(book, [])).toMatch(/no tools at all/);
    expect(capabilities(book, memory, true)).toMatch(/^Hello! What I can do here: .* --model ollama:/);
    expect(notUnderstood(book, [])).toMatch(/^Sorry, I didn't understand that\./);
  });

  it('says plainly that a family is missing from the account, and what the run can do instead', () => {
    const about = { family: 'calendar', about: 'your calendar' };
    expect(familyAnswer(book, about, memory, [])).toBe(
      "I have no tool for your calendar on this account, so I can't help with that. " +
        'What I can do here: remember what you tell me and recall it later.',
    );
    expect(familyAnswer(book, about, [...memory, 'calendar_list_events'], [])).toMatch(
      /^This query has calendar_list_events, but I did not understand/,
    );
    expect(
      familyAnswer(book, about, memory, [
        { name: 'calendar_list_events', reason: 'scope', scope: 'read:calendar' },
      ]),
    ).toBe("I can't use calendar_list_events in this query: the token needs the read:calendar scope.");
  });

  it("names why a tool is withheld: the token's scope, the query's tool list, or neither", () => {
    expect(toolWithheld('memory_save', [{ name: 'memory_save', reason: 'not_requested' }])).toBe(
      "I can't use memory_save in this query: the query's list of tools leaves it out. Ask again without that list, or with memory_save in it.",
    );
    expect(
      toolWithheld('memory_save', [{ name: 'memory_save', reason: 'scope', scope: 'write:memories' }]),
    ).toBe("I can't use memory_save in this query: the token needs the write:memories scope.");
    expect(toolWithheld('memory_save', [])).toBe(
      "I can't use memory_save in this query: it is not available here.",
    );
  });
});

/** A family whose one rule serves all its tools by name, as a self-hosted server's custom tools do. */
const byName: FamilyLanguage = {
  name: 'custom',
  topic: { about: 'custom tools', keywords: [] },
  phrases: [
    {
      intent: 'custom.run',
      examples: ['run custom_ping'],
      patterns: [/^run (custom_\w+)$/i],
      act: (m) => ({ kind: 'tool', tool: m[1], input: {} }),
      offers: { tool: 'custom_*', can: 'run your custom tools by name' },
    },
  ],
  unavailable: (tool, available) => `No ${tool}; there are ${available.join(' and ')}.`,
};

describe('a family whose rule serves each of its tools', () => {
  const withCustom = new PhraseBook([fakeMemoryFamily, byName]);

  it('offers its words once for all its tools, and none for another family', () => {
    expect(withCustom.offerFor('custom_ping')).toBe('run your custom tools by name');
    expect(withCustom.offerFor('memory_save')).toMatch(/^remember what you tell me/);
    expect(withCustom.offerFor('calendar_list_events')).toBeUndefined();
    expect(whatICanDo(withCustom, ['custom_ping', 'custom_order_status'])).toBe(
      'What I can do here: run your custom tools by name.',
    );
  });

  it('reads the values of a request by the tool’s schema: id=7 is text for a text field', async () => {
    const seen: unknown[] = [];
    const lookup = connectTool(
      defineTool()({
        name: 'custom_lookup',
        description: 'd',
        input: z.object({ id: z.string(), count: z.number(), exact: z.boolean() }),
        scope: 'read:tools',
        handler: async (input) => void seen.push(input),
      }),
      undefined,
    );
    const asked: FamilyLanguage = {
      ...byName,
      phrases: [
        {
          intent: 'custom.lookup',
          examples: [],
          patterns: [/^look up$/],
          act: () => ({ kind: 'tool', tool: 'custom_lookup', input: { id: 7, count: '3', exact: 'true' } }),
        },
      ],
    };
    await runBuiltin('look up', [asked], { tools: [lookup] });
    expect(seen).toEqual([{ id: '7', count: 3, exact: true }]);
    expect(fitInput({ id: 'x', n: 'many', other: 1 }, { properties: { n: { type: 'number' } } })).toEqual({
      id: 'x',
      n: 'many',
      other: 1,
    });
  });

  it('says in its own words that a tool it names is not there', async () => {
    const [save] = fakeMemoryTools({ saved: [] });
    const ping = { ...save, name: 'custom_ping' };
    const events = await runBuiltin('run custom_pong', [fakeMemoryFamily, byName], { tools: [ping] });
    expect(events.at(-1)).toMatchObject({
      type: 'query.completed',
      text: 'No custom_pong; there are custom_ping.',
    });
  });
});

describe('a request for a tool the account does not have', () => {
  it('says the family is missing from the account rather than that the tool is "not available"', async () => {
    const events = await runBuiltin('remember that the gate code is 4711', [fakeMemoryFamily]);
    expect(events.at(-1)).toMatchObject({
      type: 'query.completed',
      text: "I have no tool for what you told me on this account, so I can't help with that. This query gives me no tools at all, so I can only chat.",
    });
  });

  it('says that a connection is missing when the family is there but not the tool asked for', async () => {
    const [save] = fakeMemoryTools({ saved: [] });
    const events = await runBuiltin('when is the dentist?', [fakeMemoryFamily], { tools: [save] });
    expect(events.at(-1)).toMatchObject({
      type: 'query.completed',
      text: expect.stringMatching(
        /^I can't use memory_search yet: no connection of this account provides it\./,
      ),
    });
  });
});

describe('hostile text and hostile tool output', () => {
  /** A family whose phrasing and whose answer both throw, as a bug on either side of a tool call would. */
  const fragile: FamilyLanguage = {
    name: 'custom',
    topic: { about: 'custom tools', keywords: [] },
    phrases: [
      {
        intent: 'custom.fragile',
        examples: [],
        patterns: [/^run (custom_\w+) with (.*)$/i],
        act: (m) => ({ kind: 'tool', tool: m[1], input: JSON.parse(m[2]) as Record<string, unknown> }),
      },
    ],
    answer: (_tool, output) => (output as { items: string[] }).items.join(', '),
  };
  const ping = connectTool(
    defineTool()({
      name: 'custom_ping',
      description: 'd',
      input: z.object({}).passthrough(),
      scope: 'read:tools',
      handler: async () => ({ no: 'items' }),
    }),
    undefined,
  );

  it('passes over a rule that throws on a request, as if it had not matched', async () => {
    expect(new PhraseBook([fragile]).understand('run custom_ping with {"a": "\\x"}', at)).toEqual({
      kind: 'unknown',
      intent: 'unknown',
    });
    const events = await runBuiltin('run custom_ping with {"a": "\\x"}', [fragile], { tools: [ping] });
    expect(events.at(-1)).toMatchObject({
      type: 'query.completed',
      text: expect.stringMatching(/^Sorry, I didn't understand that\./),
    });
  });

  it('says it could not read a request whose tool call cannot be written down, rather than failing', async () => {
    const odd: FamilyLanguage = {
      ...fragile,
      phrases: [
        {
          intent: 'custom.odd',
          examples: [],
          patterns: [/^count (\d+)$/],
          act: (m) => ({ kind: 'tool', tool: 'custom_ping', input: { n: BigInt(m[1]) } }),
        },
      ],
    };
    const events = await runBuiltin('count 7', [odd], { tools: [ping] });
    expect(events.some((e) => e.type === 'tool_call.started')).toBe(false);
    expect(events.at(-1)).toMatchObject({
      type: 'query.completed',
      text: "Sorry, I couldn't read that request.",
    });
  });

  it('strips a request’s final stops in one pass, however many stops are inside it', () => {
    expect(normalise('Please remember: a...b!!.')).toBe('remember: a...b');
    // The longest request there is, nearly all stops that do not end it: a search from each stop was quadratic.
    const dots = `a${'.'.repeat(15_998)}b`;
    const started = performance.now();
    expect(normalise(dots)).toBe(dots);
    expect(performance.now() - started).toBeLessThan(50);
  });

  it('answers plainly when a family cannot put a tool’s output in words', async () => {
    const events = await runBuiltin('run custom_ping with {}', [fragile], { tools: [ping] });
    expect(events.find((e) => e.type === 'tool_call.completed')).toMatchObject({ status: 'ok' });
    expect(events.at(-1)).toMatchObject({ type: 'query.completed', text: 'Done (custom_ping).' });
  });
});
