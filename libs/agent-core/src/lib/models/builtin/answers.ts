import type { WithheldTool } from '@assistant/tool-adapters';
import { asSentence, capitalise, toSecondPerson } from './person';
import { PHRASES } from './phrases';

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

/** What the run's tools let the user do, in words, from what the phrase table says each tool offers. */
export function whatICanDo(available: readonly string[]): string {
  const offers = PHRASES.flatMap((rule) =>
    rule.offers && available.includes(rule.offers.tool) ? [rule.offers.can] : [],
  );
  const unspoken = available.filter((tool) => !PHRASES.some((rule) => rule.offers?.tool === tool));
  const parts = [
    ...(offers.length > 0 ? [`What I can do here: ${joinAnd(offers)}.`] : []),
    ...(unspoken.length > 0
      ? [
          `This query also has ${joinAnd(unspoken)}, which a language model can use but I have no phrasings for.`,
        ]
      : []),
  ];
  return parts.length > 0 ? parts.join(' ') : 'This query gives me no tools at all, so I can only chat.';
}

/** When the needed tool is not available to this query: the token's scopes, the query's `tools` list, or neither. */
export function toolWithheld(tool: string, withheld: readonly WithheldTool[]): string {
  const why = withheld.find((w) => w.name === tool);
  if (why?.reason === 'scope')
    return `I can't use ${tool} in this query: the token needs the ${why.scope} scope.`;
  if (why?.reason === 'not_requested') {
    return `I can't use ${tool} in this query: the query's list of tools leaves it out. Ask again without that list, or with ${tool} in it.`;
  }
  return `I can't use ${tool} in this query: it is not available here.`;
}

/**
 * A request for a tool family the phrase table has no phrasings for. Said from the run's tools: a family that is
 * withheld gets the reason, one that is there gets pointed to a language model, and one the account does not
 * have at all is named as missing, with what the run can do instead.
 */
export function familyAnswer(
  request: { family: string; about: string },
  available: readonly string[],
  withheld: readonly WithheldTool[],
): string {
  const ofFamily = (name: string) => name.startsWith(`${request.family}_`);
  const blocked = withheld.find((w) => ofFamily(w.name));
  if (blocked) return toolWithheld(blocked.name, withheld);
  const present = available.filter(ofFamily);
  if (present.length > 0) {
    return `This query has ${joinAnd(present)}, but I am the built-in model and have no phrasings for ${request.about} yet; a language model can use them.`;
  }
  return `I have no tool for ${request.about} on this account, so I can't help with that. ${whatICanDo(available)}`;
}

function joinAnd(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
