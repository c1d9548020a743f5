/**
 * A language model (LanguageModelV3) that plays scripted turns, one per call, and records what each call was
 * given: for tests of what the run's step loop decides, independent of any provider's wire format. Tests only.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import { withPushParts, type PushParts } from '../lib/models/pushed-parts';

export interface ScriptedTurn {
  /** Streamed as one text delta per element. */
  text?: string[];
  /** Tool calls the model makes, with their JSON input as text (so a test can send something that is not JSON). */
  toolCalls?: Array<{ id: string; tool: string; input: string }>;
  usage?: { input: number; output: number };
  /** Default: `tool-calls` when the turn calls tools, else `stop`. */
  finishReason?: 'stop' | 'tool-calls' | 'length' | 'error' | 'other';
  /** Sent as an `error` part after the text, instead of finishing. */
  error?: unknown;
}

export interface ScriptedModel extends LanguageModelV3 {
  /** What each call was given, its prompt copied as it was then (the run appends to the same array). */
  readonly calls: LanguageModelV3CallOptions[];
}

/** How a model hands over its parts: a web stream (any provider), or pushed as well (ours: see pushed-parts). */
export type PartDelivery = 'stream' | 'pushed';

/**
 * Plays `turns` in order; once they are used up, every further call replays the last one. `pushed`: the result
 * pushes its parts, one per macrotask as a socket would deliver them, and its stream fails.
 */
export function scriptedModel(
  turns: readonly ScriptedTurn[],
  delivery: PartDelivery = 'stream',
): ScriptedModel {
  const calls: LanguageModelV3CallOptions[] = [];
  const model: ScriptedModel = {
    specificationVersion: 'v3',
    provider: 'scripted',
    modelId: 'scripted',
    supportedUrls: {},
    calls,
    async doGenerate() {
      throw new Error('the scripted model only streams');
    },
    async doStream(options) {
      calls.push({ ...options, prompt: structuredClone(options.prompt) });
      const turn = turns[Math.min(calls.length, turns.length) - 1];
      const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      if (turn.text) {
        parts.push({ type: 'text-start', id: 't' });
        for (const delta of turn.text) parts.push({ type: 'text-delta', id: 't', delta });
        parts.push({ type: 'text-end', id: 't' });
      }
      for (const call of turn.toolCalls ?? []) {
        parts.push({ type: 'tool-call', toolCallId: call.id, toolName: call.tool, input: call.input });
      }
      if (turn.error !== undefined) {
        parts.push({ type: 'error', error: turn.error });
      } else {
        const unified = turn.finishReason ?? (turn.toolCalls?.length ? 'tool-calls' : 'stop');
        parts.push({
          type: 'finish',
          finishReason: { unified, raw: unified },
          usage: {
            inputTokens: {
              total: turn.usage?.input,
              noCache: undefined,
              cacheRead: undefined,
              cacheWrite: undefined,
            },
            outputTokens: { total: turn.usage?.output, text: undefined, reasoning: undefined },
          },
        });
      }
      if (delivery === 'pushed') {
        // Its stream fails: a run that reads it rather than the pushed parts shows.
        const unread = new ReadableStream<LanguageModelV3StreamPart>({
          start: (controller) => controller.error(new Error('the parts are pushed')),
        });
        return withPushParts({ stream: unread }, pushedOneByOne(parts));
      }
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      });
      return { stream };
    },
  };
  return model;
}

/** Pushes `parts` one per macrotask, then ends; stopping stops them. */
function pushedOneByOne(parts: readonly LanguageModelV3StreamPart[]): PushParts {
  return (sink) => {
    let next = 0;
    let timer: NodeJS.Timeout | undefined;
    const deliver = (): void => {
      if (next < parts.length) {
        sink.part(parts[next++]);
        timer = setTimeout(deliver, 0);
      } else sink.end();
    };
    timer = setTimeout(deliver, 0);
    return () => clearTimeout(timer);
  };
}
