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
import type { FamilyLanguage, WithheldTool } from '@assistant/tool-kit';
import { PhraseBook } from './phrase-book';
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
function replyTo(book: PhraseBook, options: LanguageModelV3CallOptions): Reply {
  try {
    const decision = decide(book, options);
    return decision.kind === 'tool' ? { ...decision, input: JSON.stringify(decision.input) } : decision;
  } catch {
    return { kind: 'text', text: COULD_NOT_READ };
  }
}

/**
 * Decides the next step: after a tool result, put it in words; after a user request, match the phrase book.
 * Deterministic: the same conversation (and moment) always gives the same reply.
 */
function decide(book: PhraseBook, options: LanguageModelV3CallOptions): Decision {
  const last = options.prompt[options.prompt.length - 1];
  if (last?.role === 'tool') {
    const result = last.content.find((part) => part.type === 'tool-result');
    if (result && result.type === 'tool-result') {
      const output = result.output;
      const isError = output.type === 'error-text' || output.type === 'error-json';
      const value = 'value' in output ? output.value : undefined;
      const parsed = typeof value === 'string' && output.type !== 'error-text' ? safeJson(value) : value;
      return {
        kind: 'text',
        text: answerFromToolResult(book, result.toolName, isError ? { error: value } : parsed, isError),
      };
    }
  }
  const userText =
    last?.role === 'user'
      ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ')
      : '';
  const facts = runFacts(options);
  const action = book.understand(userText, { now: new Date(), timeZone: facts.timeZone });
  const available = (options.tools ?? []).map((t) => t.name);
  switch (action.kind) {
    case 'unknown':
      return { kind: 'text', text: notUnderstood(book, available) };
    case 'help':
      return { kind: 'text', text: capabilities(book, available, action.greeting) };
    case 'family':
      return { kind: 'text', text: familyAnswer(book, action, available, facts.withheldTools) };
    case 'tool': {
      if (available.includes(action.tool)) {
        const schema = options.tools?.find((t) => t.name === action.tool);
        return schema && 'inputSchema' in schema
          ? { ...action, input: fitInput(action.input, schema.inputSchema) }
          : action;
      }
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
    },
  };
}

function runFacts(options: LanguageModelV3CallOptions): BuiltinRunFacts {
  const facts = options.providerOptions?.[PROVIDER_OPTIONS_KEY];
  const withheld = facts?.['withheldTools'];
  const timeZone = facts?.['timeZone'];
  return {
    withheldTools: Array.isArray(withheld) ? (withheld as unknown as WithheldTool[]) : [],
    timeZone: typeof timeZone === 'string' ? timeZone : 'UTC',
  };
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
}

/**
 * The built-in offline model: a real AI SDK provider (LanguageModelV3) that understands the phrasings of its
 * tool families' phrase book and answers through the same tool loop as any other model. Counts words as tokens.
 */
export function builtinModel(options: BuiltinModelOptions = {}): LanguageModelV3 {
  const pacingMs = options.pacingMs ?? DEFAULT_BUILTIN_PACING_MS;
  const book = new PhraseBook(options.families ?? []);
  return {
    specificationVersion: 'v3',
    provider: 'assistant',
    modelId: 'builtin',
    supportedUrls: {},

    async doGenerate(call) {
      const reply = replyTo(book, call);
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
      const reply = replyTo(book, call);
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
