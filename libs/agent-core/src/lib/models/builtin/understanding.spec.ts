import { z } from 'zod';
import { connectTool, defineFamily, defineTool, type ConnectedTool } from '@assistant/tool-kit';
import { runOn } from '../../../testing/run-builtin';
import { builtinModel } from './builtin-model';
import { PhraseBook } from './phrase-book';
import { capabilities } from './answers';

/**
 * What the built-in model does beyond matching one request: it learns the account's values from its tools'
 * results (and keeps them to that account), looks elsewhere when a search finds nothing, answers follow-ups from
 * the discussion, and lists what it understands from the templates. Families here are stand-ins: agent-core
 * names none of the product's.
 */
interface Mailbox {
  calls: Array<Record<string, unknown>>;
  messages: Array<{ id: string; from: string; subject: string }>;
}

const mailSearch = defineTool<Mailbox>()({
  name: 'mail_search',
  description: 'Search mail',
  input: z.object({ from: z.string().optional(), text: z.string().optional() }),
  scope: 'read:emails',
  handler: async (input, { driver }) => {
    driver.calls.push(input);
    const messages = driver.messages.filter(
      (m) =>
        (!input.from || m.from.toLowerCase().includes(input.from.toLowerCase())) &&
        (!input.text || m.subject.toLowerCase().includes(input.text.toLowerCase())),
    );
    return { messages };
  },
});

const mailFamily = defineFamily<Mailbox>({
  name: 'mail',
  description: 'mail',
  topic: { about: 'your mail', keywords: ['mail'] },
  providers: [],
  tools: [mailSearch],
  intents: {
    intents: [
      {
        intent: 'mail.search',
        templates: ['[any] mail from {sender}', 'check my {connection} mail'],
        examples: ['any mail from sam'],
        act: (slots, context) => ({
          kind: 'tool',
          tool: 'mail_search',
          input: slots['connection']
            ? { connection: context.known('connection', slots['connection']) ?? slots['connection'] }
            : { from: context.known('sender', slots['sender']!) ?? slots['sender'] },
        }),
        offers: { tool: 'mail_search', can: 'search your mail' },
      },
    ],
    learn: (tool, output) =>
      (output as { messages: Mailbox['messages'] }).messages.map((m) => ({
        kind: 'sender' as const,
        value: /<([^>]+)>/.exec(m.from)![1],
        label: m.from,
      })),
  },
  answer: (_tool, output) =>
    `Mail: ${(output as { messages: Mailbox['messages'] }).messages.map((m) => m.subject).join(', ')}.`,
});

const notesSearch = defineTool<{ calls: string[] }>()({
  name: 'notes_search',
  description: 'Search notes',
  input: z.object({ query: z.string() }),
  scope: 'read:memories',
  handler: async ({ query }, { driver }) => {
    driver.calls.push(query);
    return { notes: [] as string[] };
  },
});

const notesForget = defineTool<{ calls: string[] }>()({
  name: 'notes_forget',
  description: 'Forget a note',
  input: z.object({ id: z.string() }),
  scope: 'write:memories',
  handler: async ({ id }, { driver }) => {
    driver.calls.push(`forget ${id}`);
    return { forgotten: id };
  },
});

const notesFamily = defineFamily<{ calls: string[] }>({
  name: 'notes',
  description: 'notes',
  topic: { about: 'your notes', keywords: [] },
  providers: [],
  tools: [notesSearch, notesForget],
  intents: {
    intents: [
      {
        intent: 'notes.what',
        templates: ["what's my {thing}"],
        examples: ["what's my locker code"],
        act: (slots) => ({
          kind: 'tool',
          tool: 'notes_search',
          input: { query: slots['thing']! },
          focus: slots['thing'],
          otherwise: [{ tool: 'mail_search', input: { text: slots['thing'] } }],
        }),
      },
      {
        intent: 'notes.forget',
        templates: ['forget {topic}'],
        examples: ['forget the code'],
        act: (slots) => ({
          kind: 'tool',
          tool: 'notes_search',
          input: { query: slots['topic']! },
          then: (output) => {
            const notes = (output as { notes: string[] }).notes;
            return notes.length === 1
              ? { kind: 'tool', tool: 'notes_forget', input: { id: 'note_1' } }
              : { kind: 'text', text: 'Which one?' };
          },
        }),
      },
      {
        intent: 'notes.agenda',
        templates: ['agenda {when}'],
        examples: ['agenda today'],
        act: (slots, context) => ({
          kind: 'tool',
          tool: 'notes_search',
          input: { query: `agenda ${context.when(slots['when']!)!.startDay}` },
        }),
      },
    ],
  },
  answer: () => 'No notes.',
});

function mailbox(): Mailbox {
  return {
    calls: [],
    messages: [
      { id: 'm1', from: 'Kwik Fix Garage <service@kwikfix.example>', subject: 'Your locker code is 12' },
    ],
  };
}

const families = [notesFamily, mailFamily];
const toolsOver = (box: Mailbox, notes = { calls: [] as string[] }): ConnectedTool[] => [
  connectTool(mailSearch, box),
  connectTool(notesSearch, notes),
];

describe('the built-in model learns the account’s values from its results', () => {
  it('finds a sender by a word of its name once a result showed it, for that account only', async () => {
    const model = builtinModel({ pacingMs: 0, families });
    const box = mailbox();
    await runOn(model, 'builtin', 'any mail from kwik fix', { tools: toolsOver(box), userId: 'usr_a' });
    await runOn(model, 'builtin', 'any mail from the garage', { tools: toolsOver(box), userId: 'usr_a' });
    await runOn(model, 'builtin', 'any mail from the garage', { tools: toolsOver(box), userId: 'usr_b' });
    expect(box.calls).toEqual([
      { from: 'kwik fix' },
      { from: 'service@kwikfix.example' }, // learnt from the first result
      { from: 'garage' }, // another account: nothing learnt
    ]);
  });
});

describe('the account’s connections', () => {
  it('are known by the names the tools’ connection argument lists', async () => {
    const box = mailbox();
    const described = defineTool<Mailbox>()({
      ...mailSearch,
      input: mailSearch.input.extend({
        connection: z
          .string()
          .optional()
          .describe("Which one. The account's mail connections: Personal (the default), Work Mail."),
      }),
    });
    await runOn(builtinModel({ pacingMs: 0, families }), 'builtin', 'check my work mail', {
      tools: [connectTool(described, box)],
    });
    expect(box.calls).toEqual([{ connection: 'Work Mail' }]);
  });
});

describe('a question that looks in several places', () => {
  it('goes on to the next tool when one finds nothing, and says where the answer came from', async () => {
    const box = mailbox();
    const notes = { calls: [] as string[] };
    const events = await runOn(builtinModel({ pacingMs: 0, families }), 'builtin', "what's my locker code", {
      tools: toolsOver(box, notes),
    });
    expect(notes.calls).toEqual(['locker code']);
    expect(box.calls).toEqual([{ text: 'locker code' }]);
    expect(events.at(-1)).toMatchObject({
      type: 'query.completed',
      text: 'From your mail: Mail: Your locker code is 12.',
    });
  });

  it('says it found nothing, and where it looked, when no place has it', async () => {
    const box = { ...mailbox(), messages: [] };
    const events = await runOn(builtinModel({ pacingMs: 0, families }), 'builtin', "what's my bike code", {
      tools: toolsOver(box),
    });
    expect(events.at(-1)).toMatchObject({
      text: 'I found nothing about bike code in your notes or your mail.',
    });
  });
});

describe('a request of two steps', () => {
  it('takes its second step with the first one’s result: a call, or a question back', async () => {
    const notes = { calls: [] as string[] };
    const events = await runOn(builtinModel({ pacingMs: 0, families }), 'builtin', 'forget the code', {
      tools: [connectTool(notesSearch, notes), connectTool(notesForget, notes)],
    });
    // notes_search finds no note here: the model asks back and forgets nothing.
    expect(notes.calls).toEqual(['code']);
    expect(events.at(-1)).toMatchObject({ type: 'query.completed', text: 'Which one?' });

    const one = { calls: [] as string[] };
    const found = defineTool<{ calls: string[] }>()({
      ...notesSearch,
      handler: async ({ query }, { driver }) => {
        driver.calls.push(query);
        return { notes: ['the code is 12'] };
      },
    });
    await runOn(builtinModel({ pacingMs: 0, families }), 'builtin', 'forget the code', {
      tools: [connectTool(found, one), connectTool(notesForget, one)],
    });
    expect(one.calls).toEqual(['code', 'forget note_1']);
  });
});

describe('a follow-up', () => {
  it('asks the discussion’s previous request again with the new day', async () => {
    const notes = { calls: [] as string[] };
    await runOn(builtinModel({ pacingMs: 0, families }), 'builtin', 'and tomorrow', {
      tools: toolsOver(mailbox(), notes),
      history: [
        { role: 'user', text: 'agenda today' },
        { role: 'assistant', text: 'No notes.' },
      ],
    });
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect(notes.calls).toEqual([`agenda ${tomorrow}`]);
  });

  it('is not understood without a previous request', async () => {
    const notes = { calls: [] as string[] };
    const events = await runOn(builtinModel({ pacingMs: 0, families }), 'builtin', 'and tomorrow', {
      tools: toolsOver(mailbox(), notes),
    });
    expect(notes.calls).toEqual([]);
    expect(events.at(-1)).toMatchObject({
      text: expect.stringMatching(/^Sorry, I didn't understand that\./),
    });
  });
});

describe('help', () => {
  it('lists, per family of the run’s tools, a request made from each intent’s template', () => {
    const book = new PhraseBook(families);
    const said = capabilities(book, ['mail_search', 'notes_search'], false, true);
    expect(said).toContain("- your notes: “what's my locker code”, “forget the invoice”, “agenda tomorrow”");
    expect(said).toContain('- your mail: “mail from Sam”');
    expect(capabilities(book, ['mail_search'], false, true)).not.toContain('your notes');
  });
});
