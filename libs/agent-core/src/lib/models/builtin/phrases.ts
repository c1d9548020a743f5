/**
 * The phrase table of the built-in model: the English phrasings it understands, in the manner of Home
 * Assistant's sentence templates. Each rule turns a matching request into a tool call, a plain answer, or the
 * answer that a tool family is missing. Rules are tried in order; the first whose pattern matches wins (so the
 * catch-all questions come last). Every example is checked by a test.
 * To add a phrasing, add a pattern and an example; to add a capability, add a rule (and, for a tool, its
 * answer in `answers.ts` and what it `offers`).
 */
export type BuiltinAction =
  | { kind: 'tool'; tool: string; input: Record<string, unknown> }
  | { kind: 'text'; text: string }
  /** A request for a tool family the table has no phrasings for: the answer depends on the run's tools. */
  | { kind: 'family'; family: string; about: string };

export interface PhraseRule {
  intent: string;
  /** Requests this rule must understand; also the documentation of the phrasing. */
  examples: string[];
  patterns: RegExp[];
  act(match: RegExpMatchArray, text: string): BuiltinAction;
  /** The tool this rule calls and what that lets the user do, for telling them what is possible in a query. */
  offers?: { tool: string; can: string };
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

/**
 * Tool families the phrase table has no phrasings for yet, one declaration each: the words that give a request
 * away, and what the family is about. Such a request gets the answer that this run has no such tool (or why it
 * is withheld) and what the run's tools can do instead — decided per run, so that it stays right when a family's
 * tools arrive. A family that gets phrasings of its own drops out of this list.
 */
const MISSING_FAMILIES: Array<{ family: string; about: string; keywords: string[]; examples: string[] }> = [
  {
    family: 'calendar',
    about: 'your calendar',
    keywords: ['calendar', 'agenda', 'schedule', 'meeting', 'appointment'],
    examples: [
      'what is on my calendar tomorrow?',
      'do I have any meetings on Friday?',
      'schedule a call with Sam at 3',
    ],
  },
  {
    family: 'email',
    about: 'your mail',
    keywords: ['email', 'e-mail', 'mail', 'inbox', 'mailbox'],
    examples: ['any new mail from Sam?', 'send an email to my landlord', "what's in my inbox"],
  },
  {
    family: 'home',
    about: 'your lights and devices',
    keywords: ['light', 'lamp', 'thermostat', 'heating', 'blind', 'socket'],
    examples: ['turn on the kitchen lights', 'set the thermostat to 20 degrees', 'are the lights on?'],
  },
  {
    family: 'web',
    about: 'the web (weather, news, search)',
    keywords: ['weather', 'forecast', 'rain', 'snow', 'news', 'web', 'internet', 'website'],
    examples: ["what's the weather tomorrow?", 'will it rain today?', 'search the web for cheap flights'],
  },
  {
    family: 'files',
    about: 'your files',
    keywords: ['file', 'folder', 'document', 'pdf', 'spreadsheet'],
    examples: ['find the PDF of my lease', 'what is in my tax documents folder?'],
  },
];

function familyRule({ family, about, keywords, examples }: (typeof MISSING_FAMILIES)[number]): PhraseRule {
  return {
    intent: `${family}.missing`,
    examples,
    // Any of the words, alone or plural, anywhere in the request.
    patterns: [new RegExp(`\\b(?:${keywords.join('|')})s?\\b`, 'i')],
    act: () => ({ kind: 'family', family, about }),
  };
}

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
    offers: { tool: 'memory_save', can: 'remember what you tell me ("remember that …")' },
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
      'do you remember when the plumber comes?',
      'what do you know about Sam?',
      'what did I tell you about the boiler',
      'search my memories for passwords',
      'tell me about my sister',
      'what did I tell you about my meeting with Sam?',
    ],
    patterns: [
      /^(?:do you remember|what do you know about|what did i tell you about|search (?:my )?memories for|tell me about|look up)\s+(.+?)\??$/i,
    ],
    act: (m) => ({ kind: 'tool', tool: 'memory_search', input: { query: m[1], limit: 3 } }),
    offers: { tool: 'memory_search', can: 'recall it later ("what did I tell you about …?")' },
  },
  // Before the catch-all questions: "what is on my calendar?" is not a question about the user's memories.
  ...MISSING_FAMILIES.map(familyRule),
  {
    intent: 'memory.search',
    examples: [
      "when is my sister's birthday?",
      'what is my locker code?',
      "what's the wifi password",
      'where did I park?',
      'who is allergic to nuts?',
    ],
    patterns: [/^((?:when|where|who|whom|whose|what|what's|which|how many|how much|how old)\b.+?)\??$/i],
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
