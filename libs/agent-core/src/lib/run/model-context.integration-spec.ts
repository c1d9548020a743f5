/**
 * What a language model is told, read where it arrives: a scripted OpenAI-compatible server (the fixture stands
 * in for a model that cannot run here) records the request that `runQuery` makes through the real provider.
 */
import type { QueryEventBody } from '@assistant/contracts';
// Test only: the scripted OpenAI-compatible server stands in for a model that cannot run here (no GPU, no weights).
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startOpenAiFixture, type OpenAiFixture } from '@assistant/test-services';
import { OpenAiCompatibleChatModel } from '../models/openai-compatible/openai-compatible-chat-model';
import { runQuery, type RunInput } from './run-query';

let fixture: OpenAiFixture;
let model: OpenAiCompatibleChatModel;
beforeAll(async () => {
  fixture = await startOpenAiFixture();
  model = new OpenAiCompatibleChatModel('fixture-model', {
    name: 'openai-compatible',
    baseURL: `${fixture.url}/`,
    apiKey: 'sk-test',
  });
});
afterAll(async () => {
  await model.close();
  await fixture.close();
});
beforeEach(() => fixture.reset());

/** 40 earlier messages of about 250 tokens each: 10,000 tokens, more than the context below holds. */
const longHistory = Array.from({ length: 40 }, (_, i) => ({
  role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
  text: `earlier message ${i}: `.padEnd(1_000, 'blah '),
}));

async function ask(overrides: Partial<RunInput>) {
  fixture.script({ text: 'fine' });
  const events: QueryEventBody[] = [];
  await runQuery(
    {
      queryId: 'query_1',
      discussionId: 'discussion_1',
      messageId: 'message_1',
      userId: 'user_1',
      modelName: 'openai-compatible:fixture-model',
      model,
      text: 'what is on this week?',
      history: [],
      recalled: [],
      tools: [],
      timeZone: 'Pacific/Auckland',
      signal: new AbortController().signal,
      ...overrides,
    },
    (event) => void events.push(event),
  );
  expect(events.at(-1)?.type).toBe('query.completed');
  const [request] = fixture.requests;
  return {
    system: String(request.messages[0].content),
    messages: request.messages.slice(1).map((m) => ({ role: m.role, text: String(m.content) })),
  };
}

describe('what a language model gets in its prompt', () => {
  it("carries the user's local date, time, weekday and time zone, name, connections and the families' instructions", async () => {
    const { system } = await ask({
      userName: 'Ada Lovelace',
      connections: [
        { name: 'Work mail', family: 'email' },
        { name: 'Personal mail', family: 'email' },
        { name: 'Family calendar', family: 'calendar' },
      ],
      instructions: ['When the user asks about the tides, use the tide table.'],
    });
    const local = new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Auckland' }).format(new Date());
    const weekday = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Pacific/Auckland',
      weekday: 'long',
    }).format(new Date());
    expect(system).toMatch(
      new RegExp(
        `It is ${weekday} ${local}, \\d\\d:\\d\\d \\(GMT\\+1[23]\\) for the user \\(time zone Pacific/Auckland\\)`,
      ),
    );
    expect(system).toContain("The user's name is Ada Lovelace.");
    expect(system).toContain('- email: "Work mail", "Personal mail"\n- calendar: "Family calendar"');
    expect(system).toContain('When the user asks about the tides, use the tide table.');
  });

  it('cuts the history to the context, oldest first, and always keeps the question and the recalled memories', async () => {
    const recalled = [{ content: 'Yoga is on Tuesdays at 7', created_at: '2026-01-02T10:00:00.000Z' }];
    const { system, messages } = await ask({ history: longHistory, recalled, contextTokens: 4_096 });
    expect(system).toContain('- Yoga is on Tuesdays at 7 (saved 2026-01-02)');
    expect(messages.at(-1)).toEqual({ role: 'user', text: 'what is on this week?' });
    const kept = messages.slice(0, -1);
    // About 3,000 tokens for the prompt: some of the history, its newest part.
    expect(kept.length).toBeGreaterThan(4);
    expect(kept.length).toBeLessThan(longHistory.length);
    expect(kept).toEqual(longHistory.slice(longHistory.length - kept.length));
    const promptChars = [system, ...messages.map((m) => m.text)].join('').length;
    expect(promptChars / 4).toBeLessThanOrEqual(4_096 * 0.75);

    // A context that holds it all: every message goes.
    fixture.reset();
    const all = await ask({ history: longHistory, recalled, contextTokens: 128_000 });
    expect(all.messages).toHaveLength(longHistory.length + 1);
  });
});
