import { PHRASES, understand, NOT_UNDERSTOOD } from './phrases';
import { answerFromToolResult, familyAnswer, toolWithheld, whatICanDo } from './answers';
import { toSecondPerson } from './person';

describe('the built-in model phrase table', () => {
  const cases = PHRASES.flatMap((rule) => rule.examples.map((example) => [rule.intent, example] as const));

  it.each(cases)('%s: understands "%s"', (intent, example) => {
    expect(understand(example).intent).toBe(intent);
  });

  it('saves the fact as said, capitalised, without the command words', () => {
    expect(understand("remember that my sister's birthday is on March 3")).toMatchObject({
      kind: 'tool',
      tool: 'memory_save',
      input: { content: "My sister's birthday is on March 3" },
    });
    expect(understand('Please remember my locker code is 4711.')).toMatchObject({
      input: { content: 'My locker code is 4711' },
    });
    expect(understand('remember: the wifi password is on the fridge')).toMatchObject({
      input: { content: 'The wifi password is on the fridge' },
    });
  });

  it('searches memories with the question', () => {
    expect(understand("when is my sister's birthday?")).toMatchObject({
      kind: 'tool',
      tool: 'memory_search',
      input: { query: "when is my sister's birthday", limit: 3 },
    });
    expect(understand('what do you know about Sam?')).toMatchObject({
      tool: 'memory_search',
      input: { query: 'Sam' },
    });
  });

  it('says what it can do, and how to plug in a language model, when it does not understand', () => {
    const reply = understand('book me a table for two tonight');
    expect(reply).toMatchObject({ kind: 'text', intent: 'unknown' });
    expect(reply.kind === 'text' && reply.text).toBe(NOT_UNDERSTOOD);
    expect(NOT_UNDERSTOOD).toMatch(/--model ollama:/);
  });
});

describe('requests for tools the account does not have', () => {
  it.each([
    ['what is on my calendar tomorrow?', 'calendar'],
    ['any new mail from Sam?', 'email'],
    ['turn on the kitchen lights', 'home'],
    ["what's the weather tomorrow?", 'web'],
  ])('"%s" is a request for the %s family, not a memory question', (text, family) => {
    expect(understand(text)).toMatchObject({ kind: 'family', family, intent: `${family}.missing` });
  });

  it('still treats explicit memory questions and statements as such', () => {
    expect(understand('what did I tell you about my meeting with Sam?')).toMatchObject({
      tool: 'memory_search',
    });
    expect(understand('remember that the weather station is in the garden')).toMatchObject({
      tool: 'memory_save',
    });
  });

  const calendar = { family: 'calendar', about: 'your calendar' };
  const memory = ['memory_save', 'memory_search'];

  it('says plainly that there is no such tool on this account, and what the run can do instead', () => {
    const answer = familyAnswer(calendar, memory, []);
    expect(answer).toBe(
      "I have no tool for your calendar on this account, so I can't help with that. " +
        'What I can do here: remember what you tell me ("remember that …") and recall it later ("what did I tell you about …?").',
    );
    expect(answer).not.toMatch(/I don't know yet/);
    expect(familyAnswer(calendar, ['memory_search'], [])).toMatch(/What I can do here: recall it later/);
    expect(familyAnswer(calendar, [], [])).toMatch(/no tools at all/);
  });

  it('answers from the tools the run has, so that it stays right when a family arrives', () => {
    expect(familyAnswer(calendar, [...memory, 'calendar_list_events'], [])).toMatch(
      /^This query has calendar_list_events, but I am the built-in model/,
    );
    expect(
      familyAnswer(calendar, memory, [
        { name: 'calendar_list_events', reason: 'scope', scope: 'read:calendar' },
      ]),
    ).toBe("I can't use calendar_list_events in this query: the token needs the read:calendar scope.");
    expect(whatICanDo(['memory_save', 'calendar_list_events'])).toMatch(
      /calendar_list_events, which a language model can use but I have no phrasings for/,
    );
  });
});

describe('a tool the query may not use', () => {
  it("blames the query's tool list when that is what left the tool out", () => {
    expect(toolWithheld('memory_save', [{ name: 'memory_save', reason: 'not_requested' }])).toBe(
      "I can't use memory_save in this query: the query's list of tools leaves it out. Ask again without that list, or with memory_save in it.",
    );
  });

  it('names the missing scope when the token lacks it, and neither when it does not know', () => {
    expect(
      toolWithheld('memory_save', [{ name: 'memory_save', reason: 'scope', scope: 'write:memories' }]),
    ).toBe("I can't use memory_save in this query: the token needs the write:memories scope.");
    expect(toolWithheld('memory_save', [])).toBe(
      "I can't use memory_save in this query: it is not available here.",
    );
  });
});

describe('the built-in model answers', () => {
  it('confirms a saved memory in the second person', () => {
    expect(
      answerFromToolResult('memory_save', { content: "My sister's birthday is on March 3" }, false),
    ).toBe("OK, I'll remember that your sister's birthday is on March 3.");
  });

  it('answers from the best memory and mentions the others', () => {
    expect(
      answerFromToolResult(
        'memory_search',
        { memories: [{ content: "My sister's birthday is on March 3" }] },
        false,
      ),
    ).toBe("Your sister's birthday is on March 3.");
    expect(
      answerFromToolResult(
        'memory_search',
        { memories: [{ content: 'I parked on level 3' }, { content: 'my car is blue' }] },
        false,
      ),
    ).toBe('You parked on level 3. I also remember: Your car is blue.');
  });

  it('says so when it knows nothing, and when the tool failed', () => {
    expect(answerFromToolResult('memory_search', { memories: [] }, false)).toMatch(/^I don't know yet/);
    expect(answerFromToolResult('memory_save', { error: 'database is down' }, true)).toBe(
      "I couldn't do that: database is down.",
    );
  });

  it('turns first person into second person', () => {
    expect(toSecondPerson("I'm allergic to nuts and my doctor told me")).toBe(
      "you're allergic to nuts and your doctor told you",
    );
  });
});
