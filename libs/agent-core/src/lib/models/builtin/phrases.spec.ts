import { PHRASES, understand, NOT_UNDERSTOOD } from './phrases';
import { answerFromToolResult } from './answers';
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
