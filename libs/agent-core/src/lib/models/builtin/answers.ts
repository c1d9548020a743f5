import { asSentence, capitalise, toSecondPerson } from './person';

/** What the built-in model says once a tool has answered. */
export function answerFromToolResult(tool: string, output: unknown, isError: boolean): string {
  const result = (output ?? {}) as Record<string, unknown>;
  if (isError || typeof result.error === 'string') {
    return `I couldn't do that: ${String(result.error ?? 'the tool failed')}.`;
  }
  if (tool === 'memory_save') {
    const content = String(result.content ?? '');
    const spoken = toSecondPerson(content);
    return `OK, I'll remember that ${spoken.charAt(0).toLowerCase()}${asSentence(spoken).slice(1)}`;
  }
  if (tool === 'memory_search') {
    const memories = Array.isArray(result.memories) ? (result.memories as Array<{ content: string }>) : [];
    if (memories.length === 0) {
      return 'I don\'t know yet: you haven\'t told me. Say "remember that …" and I will.';
    }
    const [best, ...rest] = memories.map((m) => asSentence(capitalise(toSecondPerson(m.content))));
    return rest.length === 0 ? best : `${best} I also remember: ${rest.join(' ')}`;
  }
  return `Done (${tool}).`;
}

/** When the needed tool is not available to this query (the token's scopes, or `tools` in the request). */
export function toolNotAllowed(tool: string): string {
  const need =
    tool === 'memory_save' ? 'write:memories' : tool === 'memory_search' ? 'read:memories' : 'its scope';
  return `I can't use ${tool} in this query: the token needs the ${need} scope.`;
}
