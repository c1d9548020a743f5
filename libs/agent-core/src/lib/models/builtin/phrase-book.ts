import type { BuiltinAction, PhraseContext, PhraseRule, FamilyLanguage } from '@assistant/tool-kit';

/**
 * The built-in model's phrase table, put together from the tool families it is given: every family's own
 * phrasings first, then each family's topic words (so that "what is on my calendar?" is known to be about the
 * calendar even on an account without one), then the catch-all rules (a bare question searches the memories),
 * and around them the few phrasings that belong to no family (greetings, thanks, help). agent-core itself names
 * no tool and no family.
 */
export type BookAction = BuiltinAction | { kind: 'help'; greeting: boolean };

interface BookRule extends Omit<PhraseRule, 'act'> {
  act(match: RegExpMatchArray, text: string, context: PhraseContext): BookAction;
}

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

/** Phrasings of no family. */
const CONVERSATION: BookRule[] = [
  {
    intent: 'greeting',
    examples: ['hello', 'Hi!', 'hey there', 'good morning'],
    patterns: [/^(?:hello|hi|hey|good (?:morning|afternoon|evening))\b.*$/i],
    act: () => ({ kind: 'help', greeting: true }),
  },
  {
    intent: 'thanks',
    examples: ['thanks', 'thank you!', 'thanks a lot'],
    patterns: [/^(?:thanks|thank you|cheers)\b.*$/i],
    act: () => ({ kind: 'text', text: "You're welcome." }),
  },
  {
    intent: 'help',
    examples: ['help', 'what can you do?', 'what can you do for me'],
    patterns: [/^(?:help|what can you do(?: for me)?\??|how do i use you\??)$/i],
    act: () => ({ kind: 'help', greeting: false }),
  },
];

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

export class PhraseBook {
  readonly rules: readonly BookRule[];

  constructor(readonly families: readonly FamilyLanguage[]) {
    const own = families.flatMap((f) => (f.phrases ?? []).filter((rule) => !rule.fallback));
    const fallbacks = families.flatMap((f) => (f.phrases ?? []).filter((rule) => rule.fallback));
    this.rules = [...CONVERSATION, ...own, ...families.map(topicRule), ...fallbacks];
  }

  /**
   * The action for a request: the first rule whose pattern matches and that makes an action of it, or `unknown`.
   * Total, as a request is anyone's text: a rule that throws on it (a family's bug) is passed over as if it had not
   * matched, rather than failing the query as a broken model.
   */
  understand(
    text: string,
    context: PhraseContext,
  ): (BookAction & { intent: string }) | { kind: 'unknown'; intent: 'unknown' } {
    const normalised = normalise(text);
    for (const rule of this.rules) {
      for (const pattern of rule.patterns) {
        const match = normalised.match(pattern);
        if (!match) continue;
        try {
          return { ...rule.act(match, normalised, context), intent: rule.intent };
        } catch {
          break; // This rule cannot read the request: the next one may.
        }
      }
    }
    return { kind: 'unknown', intent: 'unknown' };
  }

  /** What each tool lets the user do, in words, from what the families' rules offer. */
  offers(): Map<string, string> {
    const offers = new Map<string, string>();
    for (const rule of this.rules)
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
