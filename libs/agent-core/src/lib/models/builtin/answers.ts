import { joinAnd, sayable, SHARED_RULES, type WithheldTool } from '@assistant/tool-kit';
import type { PhraseBook } from './phrase-book';

/** How to get more than the built-in model understands. */
export const LANGUAGE_MODEL_HINT =
  'I am the built-in offline model and understand common requests about your tools (say "help" for examples); for free-form questions, start the ' +
  'server with a language model, e.g. --model ollama:llama3.2 or --model openai-compatible:<model> with ' +
  'ASSISTANT_MODEL_BASE_URL.';

/**
 * What the built-in model says once a tool has answered: the tool's family puts it in words. Total, as a tool's
 * output is outside text: a family that cannot word this output (it throws) leaves the plain "Done".
 */
export function answerFromToolResult(
  book: PhraseBook,
  tool: string,
  output: unknown,
  isError: boolean,
  focus?: string,
): string {
  const result = (output ?? {}) as Record<string, unknown>;
  if (isError || typeof result.error === 'string') {
    return `I couldn't do that: ${String(result.error ?? 'the tool failed')}.`;
  }
  let worded: string | undefined;
  try {
    worded = book.familyOf(tool)?.answer?.(tool, output, focus);
  } catch {
    worded = undefined;
  }
  return typeof worded === 'string' ? worded : `Done (${tool}).`;
}

/** What the run's tools let the user do, in words, from what the families' phrasings offer. */
export function whatICanDo(book: PhraseBook, available: readonly string[]): string {
  // A rule for a whole family (the custom tools) offers the same words for each of its tools: said once.
  const spoken = [...new Set(available.flatMap((tool) => book.offerFor(tool) ?? []))];
  const unspoken = available.filter((tool) => book.offerFor(tool) === undefined);
  const parts = [
    ...(spoken.length > 0 ? [`What I can do here: ${joinAnd(spoken)}.`] : []),
    ...(unspoken.length > 0
      ? [
          `This query also has ${joinAnd(unspoken)}, which a language model can use but I have no phrasings for.`,
        ]
      : []),
  ];
  return parts.length > 0 ? parts.join(' ') : 'This query gives me no tools at all, so I can only chat.';
}

/** The answer to "help" or a greeting, from the run's tools; "help" also lists what it understands. */
export function capabilities(
  book: PhraseBook,
  available: readonly string[],
  greeting: boolean,
  listed = false,
): string {
  const head = `${greeting ? 'Hello! ' : ''}${whatICanDo(book, available)} ${LANGUAGE_MODEL_HINT}`;
  const lines = listed ? understoodLines(book, available) : [];
  return lines.length > 0 ? `${head}\n\nYou can say, for example:\n${lines.join('\n')}` : head;
}

/**
 * What the built-in model understands, one line per family of the run's tools, each request made from the first
 * template of an intent (`sayable`): generated, so it never lists what the templates do not say.
 */
export function understoodLines(book: PhraseBook, available: readonly string[]): string[] {
  return book.families.flatMap((family) => {
    const intents = (family.intents?.intents ?? []).filter(
      (intent) =>
        !intent.after &&
        !intent.fallback &&
        (!intent.offers || available.includes(intent.offers.tool) || !available.length),
    );
    const owned = available.some((tool) => tool.startsWith(`${family.name}_`));
    if (!owned || intents.length === 0) return [];
    const rules = { ...SHARED_RULES, ...family.intents?.rules };
    const said = [...new Set(intents.map((intent) => sayable(intent.templates[0], rules)))];
    return [`- ${family.topic.about}: ${said.map((s) => `“${s}”`).join(', ')}`];
  });
}

export function notUnderstood(book: PhraseBook, available: readonly string[]): string {
  return `Sorry, I didn't understand that. ${capabilities(book, available, false)}`;
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

/** When the account has the tool's family but no connection that provides this tool of it. */
export function toolNotConnected(tool: string): string {
  return `I can't use ${tool} yet: no connection of this account provides it. Add one on your profile page (/profile, Connections) or with POST /api/v1/connections, then ask again.`;
}

/**
 * A request about a family's topic that none of its phrasings matched. Said from the run's tools: a family that
 * is withheld gets the reason, one that is there gets pointed to a language model, and one the account does not
 * have at all is named as missing, with what the run can do instead.
 */
export function familyAnswer(
  book: PhraseBook,
  request: { family: string; about: string },
  available: readonly string[],
  withheld: readonly WithheldTool[],
): string {
  const ofFamily = (name: string) => name.startsWith(`${request.family}_`);
  const blocked = withheld.find((w) => ofFamily(w.name));
  if (blocked) return toolWithheld(blocked.name, withheld);
  const present = available.filter(ofFamily);
  if (present.length > 0) {
    return `This query has ${joinAnd(present)}, but I did not understand that request about ${request.about}; try one of the phrasings in "help", or a language model.`;
  }
  return `I have no tool for ${request.about} on this account, so I can't help with that. ${whatICanDo(book, available)}`;
}
