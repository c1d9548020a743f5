import {
  getErrorMessage,
  type LanguageModelV3Message,
  type LanguageModelV3Prompt,
  type LanguageModelV3ToolResultOutput,
} from '@ai-sdk/provider';

type AssistantMessage = Extract<LanguageModelV3Message, { role: 'assistant' }>;
type ToolMessage = Extract<LanguageModelV3Message, { role: 'tool' }>;

/** What an assistant turn of a step said, in the prompt's own parts (text, reasoning, tool calls). */
export type AssistantContent = AssistantMessage['content'][number];

/** A tool call's result for the model: its output, or the error it ended with. */
export type ToolOutcome = { ok: true; output: unknown } | { ok: false; error: unknown };

/**
 * The conversation a run starts with, in the language-model prompt format: the instructions, the discussion so
 * far, the question. Later steps append to this same array (see `appendStep`), so a step never rebuilds it.
 */
export function initialPrompt(
  system: string,
  history: ReadonlyArray<{ role: 'user' | 'assistant'; text: string }>,
  question: string,
): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [{ role: 'system', content: system }];
  for (const message of history) {
    prompt.push({ role: message.role, content: [{ type: 'text', text: message.text }] });
  }
  prompt.push({ role: 'user', content: [{ type: 'text', text: question }] });
  return prompt;
}

/**
 * Appends what a step said and its tools' results, the results in the order the calls came (as the AI SDK
 * does): the next model request then carries the whole exchange.
 */
export function appendStep(
  prompt: LanguageModelV3Prompt,
  content: AssistantContent[],
  results: ToolMessage['content'],
): void {
  if (content.length > 0) prompt.push({ role: 'assistant', content });
  if (results.length > 0) prompt.push({ role: 'tool', content: results });
}

/**
 * A tool's outcome as the model reads it, as the AI SDK gives it: text stays text, anything else is JSON, and
 * an error is its message alone (a tool's errors are plain sentences meant for the answer).
 */
export function toolResultOutput(outcome: ToolOutcome): LanguageModelV3ToolResultOutput {
  if (!outcome.ok) return { type: 'error-text', value: getErrorMessage(outcome.error) };
  const { output } = outcome;
  return typeof output === 'string'
    ? { type: 'text', value: output }
    : { type: 'json', value: (output ?? null) as never };
}
