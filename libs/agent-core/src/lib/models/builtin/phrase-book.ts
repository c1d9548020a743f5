import {
  IntentMatcher,
  type BuiltinAction,
  type FamilyLanguage,
  type Intent,
  type IntentContext,
  type PhraseContext,
  type PhraseRule,
  type VocabularyKind,
} from '@assistant/tool-kit';
import { whenIn } from './when';

/**
 * The built-in model's understanding, put together from the tool families it is given: every family's intents
 * (sentence templates with slots, `FamilyIntents`) and regular-expression phrasings, then each family's topic
 * words (so that "what is on my calendar?" is known to be about the calendar even on an account without one),
 * then the catch-all intents (a bare question searches the memories), and around them the few phrasings that
 * belong to no family (greetings, thanks, help, follow-ups). agent-core itself names no tool and no family.
 */
export type BookAction = BuiltinAction | { kind: 'help'; greeting: boolean };

interface BookRule extends Omit<PhraseRule, 'act'> {
  act(match: RegExpMatchArray, text: string, context: PhraseContext): BookAction;
}

/** What the book is told of a request besides its text: when, where, the account's values, the discussion. */
export interface UnderstandContext extends PhraseContext {
  known?: IntentContext['known'];
  last?: IntentContext['last'];
  previous?: IntentContext['previous'];
}

export type Understood =
  | (BookAction & { intent: string; slots?: Readonly<Record<string, string>> })
  | { kind: 'unknown'; intent: 'unknown' };

const FILLER = /^(?:please|hey assistant|assistant|ok|okay)[,\s]+/i;

/** Strips politeness and trailing punctuation: "Please remember that X." → "remember that X". */
export function normalise(text: string): string {
  return (
    text
      .trim()
      .replace(FILLER, '')
      .replace(/\s+/g, ' ')
      // From the start of a run of stops only: tried from each stop, a long run that does not end the text would
      // cost its length squared.
      .replace(/(?<![.!])[.!]+$/, '')
      .trim()
  );
}

/** A marker the conversation intents' actions carry until the book turns them into its own actions. */
const HELP = { kind: 'text', text: '\u0000help' } as const;
const GREETING = { kind: 'text', text: '\u0000greeting' } as const;

/** Phrasings of no family. */
function conversation(book: PhraseBook): Intent[] {
  return [
    {
      intent: 'greeting',
      templates: ['(hello|hi|hiya|hey|howdy|good (morning|afternoon|evening)) [there|assistant] *'],
      examples: ['hello', 'Hi!', 'hey there', 'good morning'],
      act: () => GREETING,
    },
    {
      intent: 'thanks',
      templates: [
        '[ok|okay|great|perfect|awesome|cool|brilliant] (thanks|thank you|cheers|ty|thanks a lot|much appreciated) *',
      ],
      examples: ['thanks', 'thank you!', 'thanks a lot'],
      act: () => ({ kind: 'text', text: "You're welcome." }),
    },
    {
      intent: 'help',
      templates: [
        'help [me|please|out]',
        'what can you do [for me]',
        'what do you (understand|know how to do)',
        'how do i use you',
        'what (can|should) i (ask|say) [you]',
      ],
      examples: ['help', 'what can you do?', 'what can you do for me'],
      act: () => HELP,
    },
    {
      // "and tomorrow?" after "what's on my calendar today?": the previous request again, for another day.
      intent: 'followup.when',
      templates: ['(and|what about|how about|and what about|and for|what about for) {when}'],
      examples: ['and tomorrow?', 'what about next week'],
      act: (slots, context) => {
        const previous = context.previous;
        if (!previous || !slots['when']) return undefined;
        return book.matcher.redo(previous.intent, { ...previous.slots, when: slots['when'] }, context)
          ?.action;
      },
    },
  ];
}

function topicRule(family: FamilyLanguage): BookRule {
  const { about, keywords } = family.topic;
  const escaped = keywords.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return {
    intent: `${family.name}.topic`,
    examples: [],
    // Any of the words, alone or plural, anywhere in the request (none: no topic, rather than every request).
    patterns: escaped.length > 0 ? [new RegExp(`\\b(?:${escaped.join('|')})s?\\b`, 'i')] : [],
    act: () => ({ kind: 'family', family: family.name, about }),
  };
}

const none = () => undefined;

export class PhraseBook {
  /** The families' regular-expression phrasings, tried before the templates (exact forms: "run x with …"). */
  readonly rules: readonly BookRule[];
  private readonly topics: readonly BookRule[];
  private readonly fallbackRules: readonly BookRule[];
  readonly matcher: IntentMatcher;

  constructor(readonly families: readonly FamilyLanguage[]) {
    this.rules = families.flatMap((f) => (f.phrases ?? []).filter((rule) => !rule.fallback));
    this.fallbackRules = families.flatMap((f) => (f.phrases ?? []).filter((rule) => rule.fallback));
    this.topics = families.map(topicRule);
    this.matcher = new IntentMatcher([
      { intents: conversation(this) },
      ...families.flatMap((f) => (f.intents ? [f.intents] : [])),
    ]);
  }

  /** Every intent the book knows, conversation's first, then each family's in order. */
  intents(): Intent[] {
    return this.matcher.intents();
  }

  /** The family whose intents include this one. */
  familyOfIntent(intent: string): FamilyLanguage | undefined {
    return this.families.find((f) => f.intents?.intents.some((i) => i.intent === intent));
  }

  /**
   * The action for a request: a family's exact phrasing, else the best template match, else a family's topic
   * words, else a catch-all; `unknown` when nothing fits. Total, as a request is anyone's text: a rule that
   * throws on it (a family's bug) is passed over as if it had not matched, rather than failing the query.
   */
  understand(text: string, context: UnderstandContext): Understood {
    const normalised = normalise(text);
    const read = new Map<string, ReturnType<typeof whenIn>>();
    const intentContext: IntentContext = {
      now: context.now,
      timeZone: context.timeZone,
      when: (words) => {
        // Several templates, and the shifting of words into the slot before, ask for the same words: read once.
        if (!read.has(words)) read.set(words, whenIn(words, context.now, context.timeZone));
        return read.get(words);
      },
      known: context.known ?? none,
      last: context.last ?? ((_kind: VocabularyKind) => undefined),
      previous: context.previous,
    };
    return (
      tryRules(this.rules, normalised, context) ??
      this.fromMatch(this.matcher.match(normalised, intentContext, 'main')) ??
      tryRules(this.topics, normalised, context) ??
      this.fromMatch(this.matcher.match(normalised, intentContext, 'fallback')) ??
      tryRules(this.fallbackRules, normalised, context) ?? { kind: 'unknown', intent: 'unknown' }
    );
  }

  private fromMatch(match: ReturnType<IntentMatcher['match']>): Understood | undefined {
    if (!match) return undefined;
    const { action, intent, slots } = match;
    if (action === HELP) return { kind: 'help', greeting: false, intent, slots };
    if (action === GREETING) return { kind: 'help', greeting: true, intent, slots };
    return { ...action, intent, slots };
  }

  /** What each tool lets the user do, in words, from what the families' intents and rules offer. */
  offers(): Map<string, string> {
    const offers = new Map<string, string>();
    const all = [...this.rules, ...this.intents(), ...this.fallbackRules];
    for (const rule of all)
      if (rule.offers && !offers.has(rule.offers.tool)) offers.set(rule.offers.tool, rule.offers.can);
    return offers;
  }

  /** What a tool lets the user do: its own rule's offer, or that of a rule for its whole family (`custom_*`). */
  offerFor(tool: string): string | undefined {
    const offers = this.offers();
    return offers.get(tool) ?? offers.get(`${tool.slice(0, tool.indexOf('_'))}_*`);
  }

  /** The family a tool belongs to, by its `<family>_` prefix. */
  familyOf(tool: string): FamilyLanguage | undefined {
    return this.families.find((family) => tool.startsWith(`${family.name}_`));
  }
}

function tryRules(rules: readonly BookRule[], text: string, context: PhraseContext): Understood | undefined {
  for (const rule of rules) {
    for (const pattern of rule.patterns) {
      const match = text.match(pattern);
      if (!match) continue;
      try {
        return { ...rule.act(match, text, context), intent: rule.intent };
      } catch {
        break; // This rule cannot read the request: the next one may.
      }
    }
  }
  return undefined;
}
