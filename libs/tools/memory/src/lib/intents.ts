import type { BuiltinAction, FamilyIntents, Learned } from '@assistant/tool-kit';

/**
 * What the built-in model understands of memories: sentence templates with slots (see the tool kit's
 * `intents.ts`). "What's my X?" looks in the memories first, then the mail, then the files, and the answer
 * says where it was found; any other question searches the memories, once no family's intent fits.
 */

const cleanFact = (fact: string) => {
  // From the start of a run of stops only: tried from each stop, a long run that does not end the fact would cost
  // its length squared.
  const trimmed = fact.trim().replace(/(?<![.!])[.!]+$/, '');
  return trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
};

/**
 * The memory to forget among those a search found: the only one, or the only one holding every word asked
 * about; several, and the user is asked which (nothing is deleted on a guess).
 */
function forgetOne(topic: string, output: unknown): BuiltinAction {
  const memories = (output as { memories?: Array<{ id: string; content: string }> }).memories ?? [];
  if (memories.length === 0) return { kind: 'text', text: `I have nothing about “${topic}” to forget.` };
  const words = topic.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [];
  const whole = memories.filter((m) => words.every((word) => m.content.toLowerCase().includes(word)));
  const [only] = memories.length === 1 ? memories : whole.length === 1 ? whole : [];
  if (only) return { kind: 'tool', tool: 'memory_forget', input: { id: only.id } };
  const listed = memories.map((m, i) => `${i + 1}. ${m.content}`).join('; ');
  return {
    kind: 'text',
    text: `Several memories match “${topic}”: ${listed}. Which one? Say "forget that …" with words of that one only.`,
  };
}

export const memoryIntents: FamilyIntents = {
  intents: [
    {
      intent: 'memory.save',
      templates: [
        "(remember|note|keep in mind|don't forget|do not forget|save|memorize|memorise|make a note|write down|jot down|store) [that|this|:] {text}",
        '(remember|note|keep in mind) [that|this] [:] {text}',
      ],
      examples: [
        "remember that my sister's birthday is on March 3",
        'Please remember my locker code is 4711.',
        'note that the plumber comes on Tuesday',
        "don't forget that I parked on level 3",
        'keep in mind that Sam is allergic to nuts',
        'remember: the wifi password is on the fridge',
      ],
      act: (slots) => {
        const fact = slots['text']?.replace(/^(?:that|this)\s+/i, '');
        return fact ? { kind: 'tool', tool: 'memory_save', input: { content: cleanFact(fact) } } : undefined;
      },
      offers: { tool: 'memory_save', can: 'remember what you tell me ("remember that …")' },
    },
    {
      intent: 'memory.search',
      templates: [
        '(do you remember|what do you know about|what did i tell you about|what have i told you about|search [my] memories for|tell me about|look up|recall|remind me (of|about)|what do you remember about) {topic}',
        'did i (tell|say to) you (about|anything about) {topic}',
      ],
      examples: [
        'do you remember when the plumber comes?',
        'what do you know about Sam?',
        'what did I tell you about the boiler',
        'search my memories for passwords',
        'tell me about my sister',
        'what did I tell you about my meeting with Sam?',
      ],
      act: (slots) =>
        slots['topic']
          ? { kind: 'tool', tool: 'memory_search', input: { query: slots['topic'], limit: 3 } }
          : undefined,
      offers: { tool: 'memory_search', can: 'recall it later ("what did I tell you about …?")' },
    },
    {
      // "what's my locker code": the memories, then the mail, then the files.
      intent: 'memory.what',
      templates: [
        '<whats> <my> {thing}',
        '(where|what) (is|are|was|were|s) <my> {thing}',
        "(where's|wheres) <my> {thing}",
        'what was <my> {thing} again',
        '(tell me|remind me) <my> {thing}',
        '(i forgot|i forget) <my> {thing}',
        '(remind me|tell me) what <my> {thing} (is|are|was|were)',
      ],
      examples: ['what is my locker code?', "what's the wifi password", 'whats my doctors number'],
      act: (slots) => {
        const thing = slots['thing'];
        if (!thing) return undefined;
        return {
          kind: 'tool',
          tool: 'memory_search',
          input: { query: thing, limit: 3 },
          focus: thing,
          otherwise: [
            { tool: 'email_search', input: { text: thing, limit: 5 } },
            { tool: 'files_search', input: { query: thing } },
          ],
        };
      },
    },
    {
      // "forget that my locker code is 4711": the memories that match, then the one that does (or a question).
      intent: 'memory.forget',
      templates: [
        'forget [that|about|the fact that|what i (said|told you) about|my note about] {topic}',
        '(delete|remove|erase) (the|that|my) (memory|memories|fact|note) [about|that|of|saying] {topic}',
        '(delete|remove|erase) what i told you about {topic}',
      ],
      examples: ['forget that my locker code is 4711', 'delete the memory about the spare key'],
      act: (slots) => {
        const topic = slots['topic'];
        if (!topic) return undefined;
        return {
          kind: 'tool',
          tool: 'memory_search',
          input: { query: topic, limit: 5 },
          then: (output) => forgetOne(topic, output),
        };
      },
      offers: { tool: 'memory_forget', can: 'forget what you ask me to ("forget that …")' },
    },
    {
      // Any other question may be about something the user told the assistant: tried after every family's own.
      intent: 'memory.question',
      fallback: true,
      templates: [
        '(when|where|who|whom|whose|what|which|how many|how much|how old|why|how|is|are|do|does|did) {text}',
      ],
      examples: ["when is my sister's birthday?", 'where did I park?', 'who is allergic to nuts?'],
      act: (slots, context) => {
        const text = slots['text'];
        if (!text) return undefined;
        void context;
        return { kind: 'tool', tool: 'memory_search', input: { query: text, limit: 3 } };
      },
    },
  ],
  learn: (tool, output) => {
    if (tool !== 'memory_search') return [];
    const memories = (output as { memories?: Array<{ id?: string; content: string }> }).memories ?? [];
    return memories.map((m): Learned => ({ kind: 'memory', value: m.id ?? m.content, label: m.content }));
  },
};
