/** A message of the discussion so far, as the prompt carries it. */
export interface HistoryMessage {
  role: 'user' | 'assistant';
  text: string;
}

/**
 * The context window assumed of a language model, in tokens, when the operator does not say: the smallest that
 * current local models (Llama 3, Qwen, Mistral at their defaults in Ollama and llama.cpp) run with.
 */
export const DEFAULT_CONTEXT_TOKENS = 8_192;

/** The part of the context kept free for the answer, and for the tools' results of later steps. */
const ANSWER_SHARE = 0.25;
/** What a message costs besides its text (its role and the chat template's markers), in tokens. */
const MESSAGE_OVERHEAD_TOKENS = 4;

/**
 * An estimate of the tokens of a text: about four characters a token for English with the tokenizers of current
 * models. An estimate is enough: the budget is a share of the context, not its edge, and counting exactly would
 * need each model's own tokenizer.
 */
export function estimatedTokens(text: string): number {
  return Math.ceil(text.length / 4) + MESSAGE_OVERHEAD_TOKENS;
}

/**
 * The most recent part of the discussion that fits what the context leaves once the instructions (with the
 * recalled memories), the question and the answer's share are counted: the oldest messages go first, and a
 * message goes whole or not at all. The instructions and the question are always kept, whatever they cost.
 */
export function historyWithin(
  history: readonly HistoryMessage[],
  contextTokens: number,
  kept: { system: string; question: string },
): HistoryMessage[] {
  let left =
    Math.floor(contextTokens * (1 - ANSWER_SHARE)) -
    estimatedTokens(kept.system) -
    estimatedTokens(kept.question);
  let first = history.length;
  while (first > 0) {
    const cost = estimatedTokens(history[first - 1].text);
    if (cost > left) break;
    left -= cost;
    first--;
  }
  return history.slice(first);
}
