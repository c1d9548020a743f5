import type { LanguageModelV3StreamPart, LanguageModelV3StreamResult } from '@ai-sdk/provider';

/** Where a model's answer goes part by part, as the parts are decoded. */
export interface PartSink {
  part(part: LanguageModelV3StreamPart): void;
  /** The answer is over; its last part (`finish`) was delivered. */
  end(): void;
  /** The answer cannot be read further (the connection dropped, the call was aborted). */
  fail(error: unknown): void;
}

/**
 * Starts handing the answer to `sink`, and returns how to stop it (the connection is closed); or returns
 * undefined when the result's `stream` was taken already: the answer is read from there.
 */
export type PushParts = (sink: PartSink) => (() => void) | undefined;

const PUSH_PARTS = Symbol('pushParts');

type WithPushParts = LanguageModelV3StreamResult & { [PUSH_PARTS]?: PushParts };

/**
 * Lets a `doStream` result of our own providers hand its parts to a callback as well: the step loop takes them
 * so, without the web `ReadableStream` in between (a queue entry, a promise and a microtask per part), and
 * whoever else calls the model (the AI SDK) reads `stream` as the interface says. Not enumerable, so a wrapper
 * that copies the result with another `stream` (an SDK middleware) does not copy it.
 */
export function withPushParts<T extends LanguageModelV3StreamResult>(result: T, push: PushParts): T {
  return Object.defineProperty(result, PUSH_PARTS, { value: push, enumerable: false });
}

/** The result's way of pushing its parts, when its provider offers one. */
export function pushPartsOf(result: LanguageModelV3StreamResult): PushParts | undefined {
  return (result as WithPushParts)[PUSH_PARTS];
}
