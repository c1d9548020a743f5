import { setTimeout as pause } from 'node:timers/promises';
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import type { JSONSchema7, SharedV3ProviderOptions } from '@ai-sdk/provider';
import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { BuiltinAction, FamilyLanguage, Learned, WithheldTool } from '@assistant/tool-kit';
import { PhraseBook, type UnderstandContext } from './phrase-book';
import { Vocabularies } from './vocabulary';
import {
  answerFromToolResult,
  capabilities,
  familyAnswer,
  notUnderstood,
  toolNotConnected,
  toolWithheld,
} from './answers';

type Decision =
  { kind: 'text'; text: string } | { kind: 'tool'; tool: string; input: Record<string, unknown> };
/** What the model sends: an answer, or a tool call with its input as JSON text. */
type Reply = { kind: 'text'; text: string } | { kind: 'tool'; tool: string; input: string };

/** Said when the conversation cannot be read at all. */
const COULD_NOT_READ = "Sorry, I couldn't read that request.";

let callCounter = 0;

function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function promptText(options: LanguageModelV3CallOptions): string {
  return options.prompt
    .map((m) =>
      typeof m.content === 'string' ? m.content : m.content.map((p) => ('text' in p ? p.text : '')).join(' '),
    )
    .join(' ');
}

/**
 * The model's reply, total: whatever in the conversation cannot be read (a request or a tool's output is anyone's
 * text) is said as much, as a throw here would fail the query as a broken model (`model_unavailable`).
 */
function replyTo(book: PhraseBook, vocabularies: Vocabularies, options: LanguageModelV3CallOptions): Reply {
  try {
    const decision = decide(book, vocabularies, options);
    return decision.kind === 'tool' ? { ...decision, input: JSON.stringify(decision.input) } : decision;
  } catch {
    return { kind: 'text', text: COULD_NOT_READ };
  }
}

interface ToolOutcome {
  tool: string;
  output: unknown;
  isError: boolean;
}

/** The text of a user message of the prompt. */
function textOf(message: LanguageModelV3Prompt[number]): string {
  return message.role === 'user'
    ? message.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ')
    : '';
}

/** The tool results of a tool message, their outputs parsed. */
function outcomesOf(message: LanguageModelV3Prompt[number]): ToolOutcome[] {
  if (message.role !== 'tool') return [];
  return message.content.flatMap((part) => {
    if (part.type !== 'tool-result') return [];
    const output = part.output;
    const isError = output.type === 'error-text' || output.type === 'error-json';
    const value = 'value' in output ? output.value : undefined;
    const parsed = typeof value === 'string' && output.type !== 'error-text' ? safeJson(value) : value;
    return [{ tool: part.toolName, output: isError ? { error: value } : parsed, isError }];
  });
}

/**
 * Decides the next step: after a user request, understand it; after a tool result, look further when the
 * request asked for a search that goes on elsewhere and this one found nothing, or put the result in words.
 * Deterministic: the same conversation (and moment, and what the account's results taught it) gives the same
 * reply.
 */
function decide(book: PhraseBook, vocabularies: Vocabularies, options: LanguageModelV3CallOptions): Decision {
  const prompt = options.prompt;
  const facts = runFacts(options);
  const questionAt = prompt.findLastIndex((message) => message.role === 'user');
  const question = questionAt >= 0 ? textOf(prompt[questionAt]) : '';
  const outcomes = prompt.slice(questionAt + 1).flatMap(outcomesOf);
  const latest = prompt[prompt.length - 1]?.role === 'tool' ? outcomesOf(prompt[prompt.length - 1]) : [];
  // What this result shows of the account (its senders, events, files…) is learnt before anything else.
  for (const outcome of latest) {
    if (outcome.isError) continue;
    const learned = safely(() => book.familyOf(outcome.tool)?.intents?.learn?.(outcome.tool, outcome.output));
    // No account, no learning: what one account's results show is never offered to another.
    if (learned?.length && facts.account) vocabularies.learn(facts.account, facts.discussion, learned);
  }
  if (facts.account) vocabularies.learn(facts.account, facts.discussion, connectionsOf(options));
  const context = understandContext(book, vocabularies, facts, prompt, questionAt);
  const action = book.understand(question, context);
  const available = (options.tools ?? []).map((t) => t.name);
  const schemaOf = (tool: string) => {
    const schema = options.tools?.find((t) => t.name === tool);
    return schema && 'inputSchema' in schema ? schema.inputSchema : undefined;
  };
  const call = (tool: string, input: Record<string, unknown>): Decision => {
    const schema = schemaOf(tool);
    return { kind: 'tool', tool, input: schema ? fitInput(input, schema) : input };
  };

  if (latest.length > 0) {
    const last = outcomes[outcomes.length - 1];
    // A request with a second step ("forget that X": search, then forget the one found) takes it once.
    if (action.kind === 'tool' && action.then && outcomes.length === 1 && !last.isError) {
      const then = safely(() => action.then?.(last.output));
      if (then?.kind === 'tool' && available.includes(then.tool)) return call(then.tool, then.input);
      if (then?.kind === 'text') return then;
    }
    const chain = action.kind === 'tool' ? searchChain(action, available) : [];
    const focus = action.kind === 'tool' ? action.focus : undefined;
    if (chain.length > 1 && !last.isError) {
      const found = foundIn(book, last, focus);
      const next = chain[outcomes.length];
      if (!found && next) return call(next.tool, next.input);
      if (!found) {
        const places = joinOr(chain.map((step) => book.familyOf(step.tool)?.topic.about ?? step.tool));
        return { kind: 'text', text: `I found nothing about ${focus ?? 'that'} in ${places}.` };
      }
      const where = book.familyOf(last.tool)?.topic.about;
      const answer = answerFromToolResult(book, last.tool, last.output, false, focus);
      return { kind: 'text', text: where ? `From ${where}: ${answer}` : answer };
    }
    return {
      kind: 'text',
      text: answerFromToolResult(book, last.tool, last.output, last.isError, focus),
    };
  }

  switch (action.kind) {
    case 'unknown':
      return { kind: 'text', text: notUnderstood(book, available) };
    case 'help':
      return { kind: 'text', text: capabilities(book, available, action.greeting, !action.greeting) };
    case 'family':
      return { kind: 'text', text: familyAnswer(book, action, available, facts.withheldTools) };
    case 'tool': {
      const [first] = searchChain(action, available);
      if (first) return call(first.tool, first.input);
      // Withheld from this run (scope, tool list): say why. Absent from the account: say the family is missing.
      const family = book.familyOf(action.tool);
      if (family && !facts.withheldTools.some((w) => w.name === action.tool)) {
        // A family may say it in its own words (no custom tool by that name).
        if (family.unavailable) return { kind: 'text', text: family.unavailable(action.tool, available) };
        // The family is there but not this tool (web_fetch without a search engine for web_search).
        if (available.some((name) => name.startsWith(`${family.name}_`))) {
          return { kind: 'text', text: toolNotConnected(action.tool) };
        }
        const request = { family: family.name, about: family.topic.about };
        return { kind: 'text', text: familyAnswer(book, request, available, facts.withheldTools) };
      }
      return { kind: 'text', text: toolWithheld(action.tool, facts.withheldTools) };
    }
    case 'text':
      return action;
  }
}

/**
 * The account's connections by name, as the server describes them in each tool's `connection` argument ("The
 * account's email connections: Work (the default), Personal."), so that "my work mail" names "Work".
 */
function connectionsOf(options: LanguageModelV3CallOptions): Learned[] {
  const names = new Set<string>();
  for (const tool of options.tools ?? []) {
    if (!('inputSchema' in tool)) continue;
    const argument = tool.inputSchema.properties?.['connection'];
    const description = typeof argument === 'object' ? argument.description : undefined;
    const listed = description && /The account's \S+ connections: (.+)\.$/.exec(description)?.[1];
    for (const name of listed ? listed.split(', ') : []) names.add(name.replace(/ \(the default\)$/, ''));
  }
  return [...names].map((name) => ({ kind: 'connection', value: name }));
}

/** The tools a request looks in, in order, of those the run has: its own, then where it goes on to. */
function searchChain(
  action: Extract<BuiltinAction, { kind: 'tool' }>,
  available: readonly string[],
): Array<{ tool: string; input: Record<string, unknown> }> {
  return [{ tool: action.tool, input: action.input }, ...(action.otherwise ?? [])].filter((step) =>
    available.includes(step.tool),
  );
}

/** Whether a result holds something: the family says, or any list in it has items. */
function foundIn(book: PhraseBook, outcome: ToolOutcome, focus: string | undefined): boolean {
  const family = book.familyOf(outcome.tool);
  const said = safely(() => family?.found?.(outcome.tool, outcome.output, focus));
  if (typeof said === 'boolean') return said;
  const output = outcome.output;
  if (output === null || typeof output !== 'object') return Boolean(output);
  const lists = Object.values(output).filter(Array.isArray);
  return lists.length === 0 || lists.some((list) => list.length > 0);
}

/**
 * What the book is told besides the request: the account's values, the discussion's last results, and the
 * discussion's previous request as understood then (for "and tomorrow?" and "read it").
 */
function understandContext(
  book: PhraseBook,
  vocabularies: Vocabularies,
  facts: BuiltinRunFacts & { account: string; discussion: string },
  prompt: LanguageModelV3Prompt,
  questionAt: number,
): UnderstandContext {
  const vocabulary = vocabularies.account(facts.account);
  const recent = vocabularies.recent(facts.discussion);
  const base: UnderstandContext = {
    now: new Date(),
    timeZone: facts.timeZone,
    known: (kind, words) => vocabulary.known(kind, words),
    last: (kind) => recent.get(kind),
  };
  for (let i = questionAt - 1; i >= 0; i--) {
    if (prompt[i].role !== 'user') continue;
    const earlier = book.understand(textOf(prompt[i]), base);
    if (earlier.kind === 'tool' && earlier.slots) {
      return { ...base, previous: { intent: earlier.intent, slots: earlier.slots } };
    }
    break;
  }
  return base;
}

function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

const joinOr = (items: string[]) =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;

/**
 * A phrasing's input as the tool's JSON Schema wants it: words of a request are text, so `id=42` gives a number
 * that a text field wants as "42", and `count="3"` text that a number field wants as 3. Only top-level fields,
 * only values that convert without loss; the tool's own schema still judges the result.
 */
export function fitInput(input: Record<string, unknown>, schema: JSONSchema7): Record<string, unknown> {
  const fields = schema.properties ?? {};
  return Object.fromEntries(
    Object.entries(input).map(([key, value]) => {
      const field = fields[key];
      const type = typeof field === 'object' ? field.type : undefined;
      if (type === 'string' && (typeof value === 'number' || typeof value === 'boolean')) {
        return [key, String(value)];
      }
      if ((type === 'number' || type === 'integer') && typeof value === 'string' && value.trim() !== '') {
        const number = Number(value);
        return [key, Number.isFinite(number) ? number : value];
      }
      if (type === 'boolean' && (value === 'true' || value === 'false')) return [key, value === 'true'];
      return [key, value];
    }),
  );
}

/** The name under which a run's facts for the built-in model travel in the AI SDK's per-call provider options. */
const PROVIDER_OPTIONS_KEY = 'assistant';

/** What a run tells the built-in model beyond the tools themselves. */
export interface BuiltinRunFacts {
  /** The account's tools the run withholds, and why, so that the answer can say what to change. */
  withheldTools: readonly WithheldTool[];
  /** The user's time zone, for "tomorrow" and "on Friday". */
  timeZone: string;
  /** The account, whose values (senders, events, files…) the model learns from its results. */
  account?: string;
  /** The discussion, whose last results "read it" and "reply yes" refer to. */
  discussion?: string;
}

/**
 * The run's facts in the AI SDK's per-call provider options (`streamText({ providerOptions })`). Other providers
 * read only their own key and ignore this one.
 */
export function builtinProviderOptions(facts: BuiltinRunFacts): SharedV3ProviderOptions {
  return {
    [PROVIDER_OPTIONS_KEY]: {
      withheldTools: facts.withheldTools.map((tool) => ({ ...tool })),
      timeZone: facts.timeZone,
      ...(facts.account ? { account: facts.account } : {}),
      ...(facts.discussion ? { discussion: facts.discussion } : {}),
    },
  };
}

function runFacts(
  options: LanguageModelV3CallOptions,
): BuiltinRunFacts & { account: string; discussion: string } {
  const facts = options.providerOptions?.[PROVIDER_OPTIONS_KEY];
  const withheld = facts?.['withheldTools'];
  const timeZone = facts?.['timeZone'];
  const account = facts?.['account'];
  const discussion = facts?.['discussion'];
  return {
    withheldTools: Array.isArray(withheld) ? (withheld as unknown as WithheldTool[]) : [],
    timeZone: typeof timeZone === 'string' && validZone(timeZone) ? timeZone : 'UTC',
    // Without an account (a test, another caller), values learnt are shared by those calls only.
    account: typeof account === 'string' ? account : '',
    discussion: typeof discussion === 'string' ? discussion : '',
  };
}

function validZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return true;
  } catch {
    return false;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function usage(input: number, output: number): LanguageModelV3Usage {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

const finish = (unified: LanguageModelV3FinishReason['unified']): LanguageModelV3FinishReason => ({
  unified,
  raw: unified,
});

/** Splits an answer into word-sized pieces, keeping the spaces, so that it streams as a model's would. */
export function pieces(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [text];
}

/** The pause between streamed words unless configured otherwise: fast, yet visibly streamed. */
export const DEFAULT_BUILTIN_PACING_MS = 10;

export interface BuiltinModelOptions {
  /** Pause between streamed words, so that answers arrive piece by piece as from a real model. */
  pacingMs?: number;
  /** The tool families whose phrasings it understands (all the server has, whether or not an account uses them). */
  families?: readonly FamilyLanguage[];
  /** What it learns of accounts and discussions (its own when absent; a test passes one to look into). */
  vocabularies?: Vocabularies;
}

/**
 * The built-in offline model: a real AI SDK provider (LanguageModelV3) that understands the phrasings of its
 * tool families' phrase book and answers through the same tool loop as any other model. Counts words as tokens.
 */
export function builtinModel(options: BuiltinModelOptions = {}): LanguageModelV3 {
  const pacingMs = options.pacingMs ?? DEFAULT_BUILTIN_PACING_MS;
  const book = new PhraseBook(options.families ?? []);
  const vocabularies = options.vocabularies ?? new Vocabularies();
  return {
    specificationVersion: 'v3',
    provider: 'assistant',
    modelId: 'builtin',
    supportedUrls: {},

    async doGenerate(call) {
      const reply = replyTo(book, vocabularies, call);
      const inputTokens = words(promptText(call));
      if (reply.kind === 'tool') {
        const content: LanguageModelV3Content[] = [
          {
            type: 'tool-call',
            toolCallId: `builtin_${++callCounter}`,
            toolName: reply.tool,
            input: reply.input,
          },
        ];
        return { content, finishReason: finish('tool-calls'), usage: usage(inputTokens, 1), warnings: [] };
      }
      return {
        content: [{ type: 'text', text: reply.text }],
        finishReason: finish('stop'),
        usage: usage(inputTokens, words(reply.text)),
        warnings: [],
      };
    },

    async doStream(call) {
      const reply = replyTo(book, vocabularies, call);
      const inputTokens = words(promptText(call));
      const signal = call.abortSignal;
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async start(controller) {
          try {
            controller.enqueue({ type: 'stream-start', warnings: [] });
            if (reply.kind === 'tool') {
              controller.enqueue({
                type: 'tool-call',
                toolCallId: `builtin_${++callCounter}`,
                toolName: reply.tool,
                input: reply.input,
              });
              controller.enqueue({
                type: 'finish',
                usage: usage(inputTokens, 1),
                finishReason: finish('tool-calls'),
              });
            } else {
              controller.enqueue({ type: 'text-start', id: 'text' });
              const parts = pieces(reply.text);
              for (const [i, delta] of parts.entries()) {
                if (i > 0 && pacingMs > 0) await pause(pacingMs, undefined, { signal });
                controller.enqueue({ type: 'text-delta', id: 'text', delta });
              }
              controller.enqueue({ type: 'text-end', id: 'text' });
              controller.enqueue({
                type: 'finish',
                usage: usage(inputTokens, parts.length),
                finishReason: finish('stop'),
              });
            }
            controller.close();
          } catch (error) {
            controller.error(error);
          }
        },
      });
      return { stream };
    },
  };
}
