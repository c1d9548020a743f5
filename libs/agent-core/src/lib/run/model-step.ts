import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3StreamPart,
  SharedV3ProviderMetadata,
} from '@ai-sdk/provider';
import { pushPartsOf, type PushParts } from '../models/pushed-parts';
import type { AssistantContent } from './model-prompt';
import type { StepAbort } from './run-stop';

/** A tool call as the model sent it, its JSON input parsed (not yet checked against the tool's schema). */
export interface ModelToolCall {
  toolCallId: string;
  toolName: string;
  /** The parsed input; the model's raw text when it is not JSON (then `inputError` says why). */
  input: unknown;
  inputError?: unknown;
}

/** What one model call (one step of the run) came to. */
export interface StepResult {
  /** The assistant's turn in prompt form, in the order it was said: text, reasoning, tool calls. */
  content: AssistantContent[];
  toolCalls: ModelToolCall[];
  /** The unified finish reason; `other` when the model ended its stream without saying why. */
  finishReason: string;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
}

/** Hears a step as it streams. */
export interface StepListener {
  /** Any part arrived: the model is alive. */
  alive(): void;
  text(delta: string): void;
  /** A complete tool call, as soon as it has arrived (before the step ends). */
  toolCall(call: ModelToolCall): void;
}

type TextPart = { type: 'text' | 'reasoning'; text: string; providerOptions?: SharedV3ProviderMetadata };

/**
 * One model call, streamed: text deltas are handed on as they come, the rest is collected for the prompt of the
 * next step. Resolves when the model's stream ends; rejects with the model's error (thrown by `doStream` or sent
 * as an `error` part) or, once `abort` stops the run, with its reason — even for a model that ignores its signal.
 * Parts come pushed when the provider offers it (ours: see pushed-parts), else from the result's `stream`.
 */
export async function streamStep(
  model: LanguageModelV3,
  options: Omit<LanguageModelV3CallOptions, 'abortSignal'>,
  abort: StepAbort,
  listener: StepListener,
): Promise<StepResult> {
  const { signal } = abort;
  signal.throwIfAborted();
  const streamed = await untilStopped(model.doStream({ ...options, abortSignal: signal }), abort);
  const step = new StepParts(listener);
  const push = pushPartsOf(streamed);
  await ((push && receivePushed(push, step, abort)) ?? readStream(streamed.stream, step, abort));
  signal.throwIfAborted();
  return step.result();
}

/** Reads the answer from its web stream into `step`. */
async function readStream(
  stream: ReadableStream<LanguageModelV3StreamPart>,
  step: StepParts,
  abort: StepAbort,
): Promise<void> {
  const reader = stream.getReader();
  // A pending read ends (done) when the stream is cancelled: an abort stops the step even if the model does not.
  const unwatch = abort.watch(() => void reader.cancel(abort.signal.reason).catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      step.part(value);
    }
  } finally {
    unwatch();
    reader.releaseLock();
  }
}

/**
 * Takes the answer's parts into `step` as the provider pushes them; settles as `readStream` would (an abort
 * closes the model's connection and rejects at once). Undefined when the answer was taken by its stream.
 */
function receivePushed(push: PushParts, step: StepParts, abort: StepAbort): Promise<void> | undefined {
  let over = false;
  let unwatch: () => void = () => undefined;
  let settle!: { resolve: () => void; reject: (error: unknown) => void };
  const settled = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  const stop = (error: unknown): boolean => {
    if (over) return false;
    over = true;
    unwatch();
    settle.reject(error);
    return true;
  };
  const cancel = push({
    part(part) {
      if (over) return;
      try {
        step.part(part);
      } catch (error) {
        // An error part: the step fails with it, and the rest of the answer is not read.
        if (stop(error)) cancel?.();
      }
    },
    end() {
      if (over) return;
      over = true;
      unwatch();
      settle.resolve();
    },
    fail: stop,
  });
  if (!cancel) return undefined;
  unwatch = abort.watch(() => {
    if (stop(abort.signal.reason)) cancel();
  });
  return settled;
}

/** Collects a step's parts, in the order they come, into its result; hands text on as it comes. */
class StepParts {
  private readonly collected: StepResult = {
    content: [],
    toolCalls: [],
    finishReason: 'other',
    inputTokens: undefined,
    outputTokens: undefined,
  };
  /** Text and reasoning blocks still open, by the id the model gave them. */
  private readonly open = new Map<string, TextPart>();

  constructor(private readonly listener: StepListener) {}

  /** Takes one part; throws the model's error for an `error` part. */
  part(part: LanguageModelV3StreamPart): void {
    const { listener } = this;
    listener.alive();
    switch (part.type) {
      case 'text-delta':
        if (part.delta) {
          this.block('text', part.id).text += part.delta;
          listener.text(part.delta);
        }
        break;
      case 'reasoning-delta': {
        const reasoning = this.block('reasoning', part.id);
        reasoning.text += part.delta;
        // Providers send a reasoning block's signature with its last delta; the next step must return it.
        if (part.providerMetadata) reasoning.providerOptions = part.providerMetadata;
        break;
      }
      case 'text-start':
      case 'reasoning-start':
        this.block(part.type === 'text-start' ? 'text' : 'reasoning', part.id);
        break;
      case 'text-end':
      case 'reasoning-end': {
        const ended = this.open.get(part.id);
        if (ended && part.providerMetadata) ended.providerOptions = part.providerMetadata;
        this.open.delete(part.id);
        break;
      }
      case 'tool-call': {
        // Tools the provider ran itself have their results in its own stream; there are none in our tool set.
        if (part.providerExecuted) break;
        const call: ModelToolCall = {
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          ...parseInput(part.input),
        };
        this.collected.toolCalls.push(call);
        this.collected.content.push({
          type: 'tool-call',
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          // The next request repeats the call; one whose input was not a JSON object repeats as `{}` (as the
          // AI SDK does), since providers expect an object there.
          input: call.inputError && (typeof call.input !== 'object' || call.input === null) ? {} : call.input,
          ...(part.providerMetadata ? { providerOptions: part.providerMetadata } : {}),
        });
        listener.toolCall(call);
        break;
      }
      case 'finish':
        this.collected.finishReason = part.finishReason.unified;
        this.collected.inputTokens = part.usage.inputTokens.total;
        this.collected.outputTokens = part.usage.outputTokens.total;
        break;
      case 'error':
        throw part.error;
      default:
        // tool-input-* (we wait for the whole call), stream-start, response-metadata, raw, files, sources.
        break;
    }
  }

  /** What the step came to; empty text blocks (a model that opened one and said nothing) are left out, as the AI SDK does. */
  result(): StepResult {
    const result = this.collected;
    result.content = result.content.filter(
      (part) => part.type !== 'text' || part.text !== '' || 'providerOptions' in part,
    );
    return result;
  }

  private block(type: TextPart['type'], id: string): TextPart {
    let part = this.open.get(id);
    if (!part || part.type !== type) {
      part = { type, text: '' };
      this.open.set(id, part);
      this.collected.content.push(part);
    }
    return part;
  }
}

/** A call's input text as JSON; empty text is `{}` (a tool without parameters). */
function parseInput(text: string): Pick<ModelToolCall, 'input' | 'inputError'> {
  if (text.trim() === '') return { input: {} };
  try {
    return { input: JSON.parse(text) };
  } catch (error) {
    return { input: text, inputError: error };
  }
}

/** Settles with `promise`, or rejects with the stop's reason as soon as the run stops. */
function untilStopped<T>(promise: PromiseLike<T>, abort: StepAbort): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const unwatch = abort.watch(() => reject(abort.signal.reason));
    promise.then(
      (value) => {
        unwatch();
        resolve(value);
      },
      (error: unknown) => {
        unwatch();
        reject(error);
      },
    );
  });
}
