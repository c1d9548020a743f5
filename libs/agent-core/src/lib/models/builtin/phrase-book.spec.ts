import { defineFamily } from '@assistant/tool-kit';
import { fakeMemoryFamily, fakeMemoryTools } from '../../../testing/fake-memory-family';
import { runBuiltin } from '../../../testing/run-builtin';
import { PhraseBook } from './phrase-book';
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
