import { isDeepStrictEqual } from 'node:util';
import { LIMITS } from '@assistant/contracts';
import { PhraseBook, Vocabularies } from '@assistant/agent-core';
import { FAMILIES } from '../families';
import { CORPUS, type CorpusEntry } from './corpus';
import { CORPUS_ACCOUNT } from './corpus-account';

/**
 * The built-in model against requests as people type them (issue 21): the product's families, an account whose
 * values the model has learnt, Thursday 26 November 2026 at 11:00 in Berlin. Prints the score and every miss;
 * fails below 95 %, and on any miss of the failure classes the issue names.
 */
const book = new PhraseBook(FAMILIES);
const vocabularies = new Vocabularies();
vocabularies.account('corpus').learn(CORPUS_ACCOUNT);
const account = vocabularies.account('corpus');
const base = {
  now: new Date('2026-11-26T10:00:00Z'),
  timeZone: 'Europe/Berlin',
  known: account.known.bind(account),
  last: () => undefined,
};

function understood(entry: CorpusEntry) {
  if (!entry.after) return book.understand(entry.say, base);
  const before = book.understand(entry.after, base);
  const previous =
    before.kind === 'tool' && before.slots ? { intent: before.intent, slots: before.slots } : undefined;
  // The previous request's result showed a message: the one "read it" and "reply yes" mean.
  return book.understand(entry.say, {
    ...base,
    previous,
    last: (kind) => (kind === 'message' ? 'INBOX:42' : undefined),
  });
}

/** What differs from what the entry wants; empty when it is understood right. */
function misses(entry: CorpusEntry): string[] {
  const got = understood(entry);
  const { want } = entry;
  const wrong: string[] = [];
  if (want.intent && got.intent !== want.intent) wrong.push(`intent ${got.intent}, not ${want.intent}`);
  if (want.tool) {
    if (got.kind !== 'tool') return [`no tool (${got.intent}: ${'text' in got ? got.text : got.kind})`];
    if (got.tool !== want.tool) wrong.push(`tool ${got.tool}, not ${want.tool}`);
    for (const [key, value] of Object.entries(want.input ?? {})) {
      if (!isDeepStrictEqual(got.input[key], value))
        wrong.push(`${key} ${JSON.stringify(got.input[key])}, not ${JSON.stringify(value)}`);
    }
    if (want.focus !== undefined && got.focus !== want.focus)
      wrong.push(`focus ${got.focus}, not ${want.focus}`);
  }
  return wrong;
}

/** Requests of each way the built-in model failed new users before (issue 21); every one must pass. */
const FAILURE_CLASSES: Record<string, string[]> = {
  'a sender and a topic: the topic without its article, the sender by its name': [
    'did the garage email me about a fee',
    'emails from acme plumbing about the boiler',
  ],
  'the inbox, a person’s mail, the files': [
    'check my inbox',
    'read me the mail from sam',
    'what files do i have',
  ],
  'a date with a year': ['what is on my calendar on 3 december 2026'],
  'when is my event, the next weekday, an activity, a file by name': [
    'when is my yoga class',
    'what do i have next thursday',
    'when is football practice',
    "what's on my packing list",
  ],
  'a note to a file, not a memory': ['save a note called packing list that says passport, charger, socks'],
  'follow-ups': ['and tomorrow', 'read it', 'reply yes'],
  'files overwritten when said, memories forgotten when asked': [
    'overwrite shopping.txt with bread and butter',
    'forget that my locker code is 4711',
  ],
};

describe('the built-in model understands people, not phrasings (the corpus)', () => {
  const results = CORPUS.map((entry) => ({ entry, wrong: misses(entry) }));
  const failed = results.filter((r) => r.wrong.length > 0);
  const score = (results.length - failed.length) / results.length;

  it('has at least 200 requests, none twice', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(200);
    const said = CORPUS.map((e) => `${e.after ?? ''} » ${e.say}`);
    expect(said.filter((s, i) => said.indexOf(s) !== i)).toEqual([]);
  });

  it('understands at least 95 % of them', () => {
    const report = failed.map(
      ({ entry, wrong }) =>
        `  ✗ "${entry.say}"${entry.after ? ` (after "${entry.after}")` : ''}: ${wrong.join('; ')}`,
    );
    console.log(
      `built-in model corpus: ${results.length - failed.length}/${results.length} (${(score * 100).toFixed(1)} %)` +
        (report.length ? `\n${report.join('\n')}` : ''),
    );
    expect(score).toBeGreaterThanOrEqual(0.95);
  });

  it('reads the longest request a query may have, made of words that make templates backtrack, in well under a second', () => {
    // A day's slot took up to eight words' worth of "from from …" at every place: 16,000 characters took 1.7 s.
    // The reader's own CPU time, best of three: other processes of a busy machine (CI runs test projects side by
    // side) stretch the wall clock, not the work done here.
    const fastest = (text: string) => {
      let best = Infinity;
      for (let run = 0; run < 3; run++) {
        const started = process.cpuUsage();
        book.understand(text, base);
        const used = process.cpuUsage(started);
        best = Math.min(best, (used.user + used.system) / 1000);
      }
      return best;
    };
    for (const unit of [
      'from ',
      'a',
      'from the garage about a fee on monday ',
      'mail from sam about ',
      'when is my ',
    ]) {
      const text = unit
        .repeat(Math.ceil(LIMITS.maxQueryTextChars / unit.length))
        .slice(0, LIMITS.maxQueryTextChars);
      expect({ unit, slow: fastest(text) > 600 }).toEqual({ unit, slow: false });
    }
  });

  it.each(Object.entries(FAILURE_CLASSES))(
    'passes every request of a failure class: %s',
    (_name, requests) => {
      for (const say of requests) {
        const entry = CORPUS.find((e) => e.say === say);
        expect({ say, inCorpus: Boolean(entry) }).toEqual({ say, inCorpus: true });
        expect({ say, wrong: misses(entry!) }).toEqual({ say, wrong: [] });
      }
    },
  );
});
