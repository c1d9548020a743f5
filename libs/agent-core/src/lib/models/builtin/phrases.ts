/**
 * The phrase table of the built-in model: the English phrasings it understands, in the manner of Home
 * Assistant's sentence templates. Each rule turns a matching request into a tool call or a plain answer.
 * Rules are tried in order; the first whose pattern matches wins (so the catch-all questions come last). Every example is checked by a test.
 * To add a phrasing, add a pattern and an example; to add a capability, add a rule (and, for a tool, its
 * answer in `answers.ts`).
 */
export type BuiltinAction =
  { kind: 'tool'; tool: string; input: Record<string, unknown> } | { kind: 'text'; text: string };

export interface PhraseRule {
  intent: string;
  /** Requests this rule must understand; also the documentation of the phrasing. */
  examples: string[];
  patterns: RegExp[];
  act(match: RegExpMatchArray, text: string): BuiltinAction;
}

const FILLER = /^(?:please|hey assistant|assistant|ok|okay)[,\s]+/i;

/** Lower-cases nothing, strips politeness and trailing punctuation: "Please remember that X." → "remember that X". */
export function normalise(text: string): string {
  return text
    .trim()
    .replace(FILLER, '')
    .replace(/\s+/g, ' ')
    .replace(/[.!]+$/, '')
    .trim();
}

const cleanFact = (fact: string) => {
  const trimmed = fact.trim().replace(/[.!]+$/, '');
  return trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
};

export const CAPABILITIES =
  'I can remember things for you and recall them later. Try "remember that my sister\'s birthday is on March 3", ' +
  'then "when is my sister\'s birthday?". I am the built-in offline model and understand a fixed set of phrasings; ' +
  'for free-form questions, start the server with a language model, e.g. --model ollama:llama3.2 or ' +
  '--model openai-compatible:<model> with ASSISTANT_MODEL_BASE_URL.';

export const PHRASES: PhraseRule[] = [
  {
    intent: 'memory.save',
    examples: [
      "remember that my sister's birthday is on March 3",
      'Please remember my locker code is 4711.',
      'note that the plumber comes on Tuesday',
      "don't forget that I parked on level 3",
      'keep in mind that Sam is allergic to nuts',
      'remember: the wifi password is on the fridge',
    ],
    patterns: [
      /^(?:remember|note|keep in mind|don'?t forget|do not forget|save)(?:\s*:\s*|\s+that\s+|\s+)(.+)$/i,
    ],
    act: (m) => ({ kind: 'tool', tool: 'memory_save', input: { content: cleanFact(m[1]) } }),
  },
  {
    intent: 'greeting',
    examples: ['hello', 'Hi!', 'hey there', 'good morning'],
    patterns: [/^(?:hello|hi|hey|good (?:morning|afternoon|evening))\b.*$/i],
    act: () => ({ kind: 'text', text: `Hello! ${CAPABILITIES}` }),
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
    act: () => ({ kind: 'text', text: CAPABILITIES }),
  },
  {
    intent: 'memory.search',
    examples: [
      "when is my sister's birthday?",
      'what is my locker code?',
      "what's the wifi password",
      'where did I park?',
      'who is allergic to nuts?',
      'do you remember when the plumber comes?',
      'what do you know about Sam?',
      'what did I tell you about the boiler',
      'search my memories for passwords',
      'tell me about my sister',
    ],
    patterns: [
      /^(?:do you remember|what do you know about|what did i tell you about|search (?:my )?memories for|tell me about|look up)\s+(.+?)\??$/i,
      /^((?:when|where|who|whom|whose|what|what's|which|how many|how much|how old)\b.+?)\??$/i,
    ],
    act: (m) => ({ kind: 'tool', tool: 'memory_search', input: { query: m[1], limit: 3 } }),
  },
];

export const NOT_UNDERSTOOD = `Sorry, I didn't understand that. ${CAPABILITIES}`;

/** The action for a user request, or the explanation of what the built-in model can do. */
export function understand(text: string): BuiltinAction & { intent: string } {
  const normalised = normalise(text);
  for (const rule of PHRASES) {
    for (const pattern of rule.patterns) {
      const match = normalised.match(pattern);
      if (match) return { ...rule.act(match, normalised), intent: rule.intent };
    }
  }
  return { kind: 'text', text: NOT_UNDERSTOOD, intent: 'unknown' };
}
