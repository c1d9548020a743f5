import type { BuiltinAction } from './phrases';
import type { Intent, IntentContext, SlotKind, Slots } from './intents';

/**
 * The built-in model's template engine: compiles the families' sentence templates into anchored regular
 * expressions once, reads a request as people type it (politeness, slang and typos set aside) and picks the
 * template that explains most of its words. Syntax: `(a|b)` alternatives, `[a|b]` optional words, `{kind}` or
 * `{kind:name}` a slot, `<rule>` an expansion rule, `*` any words (which count as unexplained).
 */

/** Expansion rules every family's templates may use. */
export const SHARED_RULES: Readonly<Record<string, string>> = {
  mail: '(mail|mails|email|emails|message|messages|inbox|mailbox)',
  calendar: '(calendar|agenda|schedule|diary|planner)',
  events: '(meetings|meeting|events|event|appointments|appointment|plans|anything|something|stuff|things)',
  whats: "(what's|what is|what are|what)",
  show: '(show|list|give|get|tell|display|check|see|pull up|bring up|find) [me|us]',
  my: '(my|the|our)',
};

const SLOT_KINDS = new Set<SlotKind>([
  'sender',
  'person',
  'topic',
  'text',
  'title',
  'event',
  'thing',
  'when',
  'file',
  'folder',
  'device',
  'connection',
  'url',
  'address',
  'number',
  'state',
]);

/** The words a day, a period or a time is said with: a `{when}` slot holds these only, so it never swallows a topic. */
const WHEN_WORD =
  '(?:on|at|in|for|this|next|last|coming|upcoming|the|of|from|until|till|to|by|before|after|and|a|an|' +
  'today|tonight|tomorrow|yesterday|lately|recently|morning|afternoon|evening|night|noon|midday|midnight|lunchtime|' +
  'weekend|weekends|week|weeks|month|months|year|day|days|fortnight|' +
  'mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun|' +
  'january|february|march|april|may|june|july|august|september|october|november|december|' +
  'jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|' +
  'one|two|three|four|five|six|seven|eight|nine|ten|couple|few|' +
  "am|pm|o'clock|\\d{1,4}(?:st|nd|rd|th)?|\\d{1,2}[:.]\\d{2}(?:am|pm)?|\\d{1,2}(?:am|pm)|\\d{1,4}[-/.]\\d{1,2}(?:[-/.]\\d{1,4})?)";

/** What a slot of a kind may hold, when it is narrower than any words. */
const SLOT_PATTERNS: Partial<Record<SlotKind, string>> = {
  // At most eight words: a day is said in fewer, and a bound keeps a long run of "from from …" linear.
  when: `${WHEN_WORD}\\b(?:\\s+${WHEN_WORD}\\b){0,7}`,
  // A name (a sender, an account): at most six words, for the same reason — with two free slots, a template such as
  // "from {sender} about {topic} {when}" tried every split of a 16,000-character request (~150 ms for one template).
  sender: '\\S+(?:\\s+\\S+){0,5}?',
  connection: '\\S+(?:\\s+\\S+){0,5}?',
  url: 'https?:\\/\\/\\S+',
  address: '[^\\s@]+@[^\\s@]+\\.[^\\s@]+',
  number: '\\d+(?:[.,]\\d+)?',
  state: 'on|off',
};

/** Words that never become search terms. */
export const STOP_WORDS = new Set(
  (
    'a an the any anything some something me my mine our your about regarding concerning re of for ' +
    'mail mails email emails message messages inbox new latest recent last stuff things thing please pls'
  ).split(' '),
);

const DETERMINERS = /^(?:my|the|a|an|our|your|some|any|that|this)\s+/i;

/** A slot's words made into a value: undefined when nothing is left of them. */
export function cleanSlot(kind: SlotKind, words: string): string | undefined {
  let value = words.trim().replace(/^["'“‘]+|["'”’?!,;:]+$/g, '');
  switch (kind) {
    case 'topic':
      value = value
        .split(/\s+/)
        .filter((word) => !STOP_WORDS.has(word.toLowerCase()))
        .join(' ');
      break;
    case 'text':
    case 'url':
    case 'address':
    case 'number':
    case 'state':
    case 'when':
      break;
    default:
      while (DETERMINERS.test(value)) value = value.replace(DETERMINERS, '');
  }
  value = value.trim();
  return /[\p{L}\p{N}]/u.test(value) ? value : undefined;
}

// ─── Reading a request ────────────────────────────────────────────────────────────────────────────────────────

/** Shorthand and slang people type, as the words the templates know ('' drops the word). */
const SLANG: Readonly<Record<string, string>> = {
  pls: '',
  plz: '',
  pleas: '',
  please: '',
  kindly: '',
  thx: 'thanks',
  ty: 'thanks',
  u: 'you',
  ur: 'your',
  r: 'are',
  tmrw: 'tomorrow',
  tmr: 'tomorrow',
  tmrow: 'tomorrow',
  tomoz: 'tomorrow',
  '2moro': 'tomorrow',
  '2morrow': 'tomorrow',
  tonite: 'tonight',
  '2day': 'today',
  '2nite': 'tonight',
  msg: 'message',
  msgs: 'messages',
  appt: 'appointment',
  appts: 'appointments',
  mtg: 'meeting',
  mtgs: 'meetings',
  wk: 'week',
  abt: 'about',
  b4: 'before',
  whats: "what's",
  wats: "what's",
  wheres: "where's",
  whens: "when's",
  dont: "don't",
  didnt: "didn't",
  im: "i'm",
  'e-mail': 'email',
  'e-mails': 'emails',
  emails: 'emails',
  info: 'info',
};

/** Said before a request and meaning nothing for it ("hey can you pls …"). */
const LEADING = [
  'hey assistant',
  'assistant',
  'ok so',
  'okay so',
  'ok',
  'okay',
  'so',
  'um',
  'uh',
  'hmm',
  'yo',
  'hey',
  'can you',
  'could you',
  'would you',
  'will you',
  'can i',
  'i want to',
  'i wanna',
  "i'd like to",
  'i would like to',
  'i need you to',
  'i need to',
  'just',
  'quickly',
  'quick',
].map((phrase) => phrase.split(' '));

const GREETINGS = new Set(['hey', 'yo', 'hi']);

/** Said before a question, and meaning nothing for it ("can you tell me whats on …", "i need to know if …"). */
const ASKING = [
  'tell me',
  'tell us',
  'let me know',
  'i need to know',
  'i want to know',
  'i wanna know',
  "i'd like to know",
  'do you know',
  'any idea',
  'check',
  'see',
].map((phrase) => phrase.split(' '));

/** A question's first word; "if" and "whether" go with the phrase before them. */
const QUESTION_WORDS = new Set([
  "what's",
  'what',
  'when',
  "when's",
  'where',
  'who',
  'which',
  'how',
  'if',
  'whether',
]);

/** Said after a request ("… for me thanks"). */
const TRAILING = ['for me', 'thanks', 'thank you', 'now', 'asap', 'real quick', 'quickly', 'again'].map(
  (phrase) => phrase.split(' '),
);

/** A word that is a URL, an address or a file name keeps its dots and slashes. */
const KEEPS_PUNCTUATION = /:\/\/|@|\w\.\w/;

function stripWord(word: string, last: boolean): string {
  // Commas and colons stay, for the words a slot passes on verbatim ("says passport, charger"); the templates
  // read them as spaces. Quotes and question and exclamation marks go, and a final stop.
  let stripped = word.replace(/^["'“‘(]+/, '').replace(/["'”’)!?]+$/, '');
  if (last || !KEEPS_PUNCTUATION.test(stripped)) stripped = stripped.replace(/["'”’)!?]*\.+$/, '');
  return stripped.replace(/[’‘]/g, "'");
}

function startsWith(words: readonly string[], phrase: readonly string[], at: number): boolean {
  return phrase.every((word, i) => words[at + i]?.toLowerCase().replace(/[,;:]+$/, '') === word);
}

/** Single-deletion variants of a word, for one-typo look-ups (SymSpell's idea, with distance 1). */
function deletions(word: string): string[] {
  const variants: string[] = [];
  for (let i = 0; i < word.length; i++) variants.push(word.slice(0, i) + word.slice(i + 1));
  return variants;
}

/** The words worth correcting: those a request's meaning turns on. */
const CORRECTABLE = new Set(
  (
    'calendar agenda schedule email emails inbox mailbox message messages tomorrow today tonight yesterday ' +
    'appointment appointments meeting meetings remember search files folder document documents devices ' +
    'thermostat temperature weekend monday tuesday wednesday thursday friday saturday sunday january february ' +
    'march april june july august september october november december anything unread reply delete overwrite ' +
    'replace memories google internet online summarize summarise website switch upcoming latest newest ' +
    'planned scheduled happening events event forget'
  ).split(' '),
);

/**
 * Corrects words one typo away from a word of the templates ("calender", "emial", "tomorow"), without touching
 * words the templates know. Built once from the templates' words.
 */
export class Speller {
  private readonly known = new Set<string>();
  private readonly byVariant = new Map<string, string>();

  constructor(words: Iterable<string>) {
    for (const word of words) this.known.add(word);
    for (const word of CORRECTABLE) this.known.add(word);
    for (const word of this.known) {
      // Only the words a request turns on, never one that may be a slot's ("locker" is no typo of "locked").
      if (word.length < 5 || !/^[a-z]+$/.test(word) || !CORRECTABLE.has(word)) continue;
      if (!this.byVariant.has(word)) this.byVariant.set(word, word);
      for (const variant of deletions(word))
        if (!this.byVariant.has(variant)) this.byVariant.set(variant, word);
    }
  }

  correct(word: string): string {
    const lower = word.toLowerCase();
    // No word of the templates is longer than 20 letters: a longer one is no typo of one (and its deletions
    // would cost its length squared).
    if (lower.length < 4 || lower.length > 20 || this.known.has(lower) || !/^[a-z]+$/.test(lower))
      return word;
    // People mistype inside a word, seldom its first letter: a correction keeps it ("flights" is no "lights").
    const direct = this.byVariant.get(lower); // a word with one letter more than lower
    if (direct && direct[0] === lower[0]) return direct;
    for (const variant of deletions(lower)) {
      const found = this.byVariant.get(variant);
      if (found && found[0] === lower[0] && (lower.length >= 5 || found.length === lower.length + 1))
        return found;
    }
    return word;
  }
}

/**
 * A request as the templates read it: each word stripped of its punctuation (URLs, addresses and file names keep
 * theirs), slang spelt out, typos corrected, politeness before and after set aside. Case is kept, for the words
 * a slot passes on verbatim.
 */
export function readRequest(text: string, speller?: Speller): string {
  const words: string[] = [];
  const raws = text.trim().split(/\s+/);
  for (const [i, raw] of raws.entries()) {
    const word = stripWord(raw, i === raws.length - 1);
    if (!word || /^[,;:]+$/.test(word)) continue;
    const lower = word.toLowerCase().replace(/[,;:]+$/, '');
    const slang = SLANG[lower];
    if (slang !== undefined) {
      if (slang) words.push(slang);
      continue;
    }
    const trail = word.slice(lower.length);
    words.push(speller ? speller.correct(word.slice(0, lower.length)) + trail : word);
  }
  let start = 0;
  let end = words.length;
  for (let found = true; found;) {
    found = false;
    for (const phrase of ASKING) {
      const next = words[start + phrase.length]?.toLowerCase();
      if (end - start > phrase.length + 1 && startsWith(words, phrase, start) && QUESTION_WORDS.has(next)) {
        // "if" and "whether" go too: "i need to know if i have …" asks "i have …".
        start += phrase.length + (next === 'if' || next === 'whether' ? 1 : 0);
        found = true;
        break;
      }
    }
    for (const phrase of LEADING) {
      // "hey there" stays a greeting; "hey check my inbox" is a request.
      const rest = GREETINGS.has(phrase.join(' ')) ? phrase.length + 1 : phrase.length;
      if (end - start > rest && startsWith(words, phrase, start)) {
        start += phrase.length;
        found = true;
        break;
      }
    }
  }
  for (let found = true; found;) {
    found = false;
    for (const phrase of TRAILING) {
      if (end - start > phrase.length && startsWith(words, phrase, end - phrase.length)) {
        end -= phrase.length;
        found = true;
        break;
      }
    }
  }
  return words.slice(start, end).join(' ');
}

// ─── Compiling templates ──────────────────────────────────────────────────────────────────────────────────────

interface CompiledTemplate {
  intent: Intent;
  template: string;
  regex: RegExp;
  /** Group name → the slot's kind and name. */
  slots: Map<string, { kind: SlotKind; name: string }>;
  wildcards: string[];
  /** Words every request it matches has (a cheap test before the regular expression). */
  required: string[];
  order: number;
}

/** Between two parts of a template: spaces, and the commas and colons people put between words. */
const SEPARATOR = '[\\s,;:]*';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

class TemplateParser {
  private at = 0;
  private groups = 0;
  readonly slots = new Map<string, { kind: SlotKind; name: string }>();
  readonly wildcards: string[] = [];
  readonly required: string[] = [];
  readonly words = new Set<string>();

  constructor(
    private readonly source: string,
    private readonly rules: Readonly<Record<string, string>>,
    private readonly depth = 0,
  ) {}

  parse(): string {
    const body = this.alternatives(true);
    if (this.at < this.source.length) this.fail(`unexpected "${this.source[this.at]}"`);
    return body;
  }

  private fail(why: string): never {
    throw new Error(`template "${this.source}": ${why} at ${this.at}`);
  }

  private alternatives(top: boolean): string {
    const options = [this.sequence(top)];
    while (this.source[this.at] === '|') {
      this.at++;
      options.push(this.sequence(false));
    }
    if (options.length > 1 && top) this.required.length = 0;
    return options.length > 1 ? `(?:${options.join('|')})` : options[0];
  }

  private sequence(top: boolean): string {
    const atoms: string[] = [];
    for (;;) {
      const c = this.source[this.at];
      if (c === undefined || c === ')' || c === ']' || c === '|') break;
      if (c === ' ') {
        this.at++;
        continue;
      }
      if (c === '(' || c === '[') {
        this.at++;
        const inner = this.alternatives(false);
        const close = c === '(' ? ')' : ']';
        if (this.source[this.at] !== close) this.fail(`missing "${close}"`);
        this.at++;
        atoms.push(c === '(' ? `(?:${inner})` : `(?:${inner})?`);
      } else if (c === '{') {
        const end = this.source.indexOf('}', this.at);
        if (end < 0) this.fail('missing "}"');
        const [kind, name = kind] = this.source.slice(this.at + 1, end).split(':') as [SlotKind, string?];
        if (!SLOT_KINDS.has(kind)) this.fail(`unknown slot kind "${kind}"`);
        const group = `s${this.groups++}`;
        this.slots.set(group, { kind, name });
        atoms.push(`(?<!\\w)(?<${group}>${SLOT_PATTERNS[kind] ?? '\\S.*?'})(?!\\w)`);
        this.at = end + 1;
      } else if (c === '<') {
        const end = this.source.indexOf('>', this.at);
        if (end < 0) this.fail('missing ">"');
        const name = this.source.slice(this.at + 1, end);
        const rule = this.rules[name];
        if (rule === undefined) this.fail(`unknown rule <${name}>`);
        if (this.depth > 5) this.fail(`rule <${name}> expands too deep`);
        const inner = new TemplateParser(rule, this.rules, this.depth + 1);
        inner.groups = this.groups;
        const body = inner.parse();
        this.groups = inner.groups;
        for (const [group, slot] of inner.slots) this.slots.set(group, slot);
        for (const word of inner.words) this.words.add(word);
        atoms.push(`(?:${body})`);
        this.at = end + 1;
      } else if (c === '*') {
        const group = `w${this.groups++}`;
        this.wildcards.push(group);
        atoms.push(`(?<${group}>.*?)`);
        this.at++;
      } else {
        const match = /^[^\s()[\]{}<>|*]+/.exec(this.source.slice(this.at));
        if (!match) this.fail('unexpected character');
        const word = match[0].toLowerCase();
        this.words.add(word);
        if (top) this.required.push(word);
        const edgeStart = /^\w/.test(word) ? '\\b' : '';
        const edgeEnd = /\w$/.test(word) ? '\\b' : '';
        atoms.push(`${edgeStart}${escape(word)}${edgeEnd}`);
        this.at += match[0].length;
      }
    }
    return atoms.join(SEPARATOR);
  }
}

/**
 * The values of a match's slots, or undefined when one is unusable. A day that does not read as one gives its
 * first words to the slot before it ("parents evening on the 10th": the title is "parents evening", not
 * "parents", as "evening" is also a time of day).
 */
function readSlots(
  compiled: CompiledTemplate,
  groups: Record<string, string>,
  context: IntentContext,
): Record<string, string> | undefined {
  const raw = [...compiled.slots].flatMap(([group, slot]) =>
    groups[group] === undefined ? [] : [{ ...slot, words: groups[group] }],
  );
  for (const [i, slot] of raw.entries()) {
    if (slot.kind !== 'when' || i === 0) continue;
    const before = raw[i - 1];
    let words = slot.words.trim().split(/\s+/);
    while (words.length > 1 && !context.when(cleanSlot('when', words.join(' ')) ?? '')) {
      before.words = `${before.words} ${words[0]}`;
      words = words.slice(1);
    }
    slot.words = words.join(' ');
  }
  const slots: Record<string, string> = {};
  for (const { kind, name, words } of raw) {
    const value = cleanSlot(kind, words);
    if (value === undefined || (kind === 'when' && !context.when(value))) return undefined;
    slots[name] = value;
  }
  return slots;
}

// ─── Matching ─────────────────────────────────────────────────────────────────────────────────────────────────

/** A request understood: the intent, its slots' values, and the action it makes. */
export interface IntentMatch {
  intent: string;
  slots: Readonly<Record<string, string>>;
  action: BuiltinAction;
}

/** A group of intents and the expansion rules their templates use (a family's, or the conversation's). */
export interface IntentGroup {
  intents: readonly Intent[];
  rules?: Readonly<Record<string, string>>;
}

export class IntentMatcher {
  private readonly compiled: CompiledTemplate[] = [];
  readonly speller: Speller;

  constructor(groups: readonly IntentGroup[]) {
    const words = new Set<string>();
    let order = 0;
    for (const group of groups) {
      const rules = { ...SHARED_RULES, ...group.rules };
      for (const intent of group.intents) {
        for (const template of intent.templates) {
          const parser = new TemplateParser(template, rules);
          const body = parser.parse();
          for (const word of parser.words) words.add(word);
          this.compiled.push({
            intent,
            template,
            regex: new RegExp(`^${body}$`, 'i'),
            slots: parser.slots,
            wildcards: parser.wildcards,
            // Only whole words: "'s" is part of the word before it ("sam's").
            required: parser.required.filter((word) => /^\w[\w']*$/.test(word)),
            order: order++,
          });
        }
      }
    }
    this.speller = new Speller(words);
  }

  /** Every intent, in the order given. */
  intents(): Intent[] {
    return [...new Set(this.compiled.map((c) => c.intent))];
  }

  /**
   * The best reading of a request: of the templates it matches (follow-ups only after their intents), the one
   * whose own words explain most of it, fallbacks last; a match whose slots its intent cannot use (a day the
   * date parser does not read) gives way to the next. Undefined when none fits.
   */
  match(
    text: string,
    context: IntentContext,
    which: 'all' | 'main' | 'fallback' = 'all',
  ): IntentMatch | undefined {
    const request = readRequest(text, this.speller);
    if (!request) return undefined;
    const present = new Set(request.toLowerCase().split(/[\s,;:]+/));
    const candidates: Array<{ compiled: CompiledTemplate; groups: Record<string, string>; score: number }> =
      [];
    for (const compiled of this.compiled) {
      const { intent } = compiled;
      if (which !== 'all' && (which === 'fallback') !== (intent.fallback ?? false)) continue;
      if (intent.after && !(context.previous && intent.after.includes(context.previous.intent))) continue;
      if (!compiled.required.every((word) => present.has(word))) continue;
      const found = compiled.regex.exec(request);
      if (!found) continue;
      const groups = (found.groups ?? {}) as Record<string, string>;
      let unexplained = 0;
      for (const group of compiled.slots.keys()) unexplained += (groups[group] ?? '').length;
      for (const group of compiled.wildcards) unexplained += (groups[group] ?? '').length * 2;
      candidates.push({ compiled, groups, score: request.length - unexplained });
    }
    candidates.sort(
      (a, b) =>
        Number(a.compiled.intent.fallback ?? false) - Number(b.compiled.intent.fallback ?? false) ||
        b.score - a.score ||
        a.compiled.order - b.compiled.order,
    );
    for (const { compiled, groups } of candidates) {
      const slots = readSlots(compiled, groups, context);
      if (!slots) continue;
      let action: BuiltinAction | undefined;
      try {
        action = compiled.intent.act(slots as Slots, context);
      } catch {
        action = undefined; // An intent that cannot read these slots (a family's bug) is passed over.
      }
      if (action) return { intent: compiled.intent.intent, slots, action };
    }
    return undefined;
  }

  /** The slots of a request for one intent, for a follow-up that re-asks it with a slot changed. */
  redo(
    intentName: string,
    slots: Readonly<Record<string, string>>,
    context: IntentContext,
  ): IntentMatch | undefined {
    const intent = this.compiled.find((c) => c.intent.intent === intentName)?.intent;
    if (!intent) return undefined;
    const action = intent.act(slots as Slots, context);
    return action && { intent: intentName, slots, action };
  }
}

// ─── Saying a template ────────────────────────────────────────────────────────────────────────────────────────

/** What `help` puts in a slot of each kind. */
const SAMPLES: Record<SlotKind, string> = {
  sender: 'Sam',
  person: 'sam@example.com',
  topic: 'the invoice',
  text: '…',
  title: 'lunch with Sam',
  event: 'yoga class',
  thing: 'locker code',
  when: 'tomorrow',
  file: 'packing list',
  folder: 'documents',
  device: 'kitchen light',
  connection: 'work',
  url: 'https://…',
  address: 'sam@example.com',
  number: '21',
  state: 'on',
};

/**
 * A request a template understands, in words: the first of each choice, no optional words, a sample in each
 * slot ("what's on my calendar tomorrow"). `help` is made of these, so it says only what the templates do.
 */
export function sayable(template: string, rules: Readonly<Record<string, string>> = SHARED_RULES): string {
  let at = 0;
  const all = { ...SHARED_RULES, ...rules };
  const choice = (text: string, depth: number): string => {
    // The first alternative of a choice, read to its end or its first top-level "|".
    const said: string[] = [];
    let level = 0;
    let word = '';
    const flush = () => {
      if (word) said.push(word);
      word = '';
    };
    for (at = 0; at < text.length; at++) {
      const c = text[at];
      if (c === '|' && level === 0) break;
      if (c === '(' || c === '[') {
        flush();
        const close = c === '(' ? ')' : ']';
        let inner = 0;
        let end = at + 1;
        for (; end < text.length; end++) {
          if (text[end] === '(' || text[end] === '[') inner++;
          else if ((text[end] === ')' || text[end] === ']') && inner-- === 0) break;
        }
        const body = text.slice(at + 1, end);
        const saved = end;
        if (close === ')') said.push(choice(body, depth + 1));
        at = saved;
        level = 0;
      } else if (c === '{') {
        flush();
        const end = text.indexOf('}', at);
        const kind = text.slice(at + 1, end).split(':')[0] as SlotKind;
        said.push(SAMPLES[kind] ?? kind);
        at = end;
      } else if (c === '<') {
        flush();
        const end = text.indexOf('>', at);
        const rule = all[text.slice(at + 1, end)] ?? '';
        const saved = end;
        if (depth < 5) said.push(choice(rule, depth + 1));
        at = saved;
      } else if (c === ' ') {
        flush();
      } else if (c !== '*') {
        word += c;
      }
    }
    flush();
    return said.filter(Boolean).join(' ');
  };
  return choice(template, 0);
}

/**
 * The examples of a family's intents that are not read as their own intent: what a family's test expects to be
 * empty. Days are not parsed here (the model's date parser is not the kit's): any words a `{when}` slot takes
 * count as one, and a follow-up is tried right after a request of the first intent it follows.
 */
export function misreadExamples(group: IntentGroup): string[] {
  const matcher = new IntentMatcher([group]);
  const anyDay = {
    start: '2026-01-01T00:00:00Z',
    end: '2026-01-02T00:00:00Z',
    hasTime: true,
    startDay: '2026-01-01',
    endDay: '2026-01-01',
  };
  return group.intents.flatMap((intent) =>
    intent.examples.flatMap((example) => {
      const context: IntentContext = {
        now: new Date('2026-01-01T00:00:00Z'),
        timeZone: 'UTC',
        when: () => anyDay,
        known: () => undefined,
        last: () => 'example-id',
        previous: intent.after ? { intent: intent.after[0], slots: { sender: 'Sam' } } : undefined,
      };
      const got = matcher.match(example, context)?.intent ?? 'nothing';
      return got === intent.intent ? [] : [`${intent.intent}: "${example}" read as ${got}`];
    }),
  );
}
