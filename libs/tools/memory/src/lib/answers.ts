import { asSentence, capitalise, toSecondPerson } from '@assistant/tool-kit';

/** What the built-in model says once a memory tool has answered. */
export function memoryAnswer(tool: string, output: unknown): string {
  const result = (output ?? {}) as Record<string, unknown>;
  if (tool === 'memory_forget') return "Done: I've forgotten it.";
  if (tool === 'memory_save') {
    const spoken = toSecondPerson(String(result.content ?? ''));
    return `OK, I'll remember that ${spoken.charAt(0).toLowerCase()}${asSentence(spoken).slice(1)}`;
  }
  const memories = Array.isArray(result.memories) ? (result.memories as Array<{ content: string }>) : [];
  if (memories.length === 0)
    return 'I don\'t know yet: you haven\'t told me. Say "remember that …" and I will.';
  const [best, ...rest] = memories.map((m) => asSentence(capitalise(toSecondPerson(m.content))));
  return rest.length === 0 ? best : `${best} I also remember: ${rest.join(' ')}`;
}
