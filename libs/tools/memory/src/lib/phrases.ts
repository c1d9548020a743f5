import type { PhraseRule } from '@assistant/tool-kit';

const cleanFact = (fact: string) => {
  // From the start of a run of stops only: tried from each stop, a long run that does not end the fact would cost
  // its length squared.
  const trimmed = fact.trim().replace(/(?<![.!])[.!]+$/, '');
  return trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
};

export const memoryPhrases: PhraseRule[] = [
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
  {
    // Any other question may be about something the user told the assistant: tried after every family's own.
    intent: 'memory.search',
    fallback: true,
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
