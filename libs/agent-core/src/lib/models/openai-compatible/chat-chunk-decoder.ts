import { randomUUID } from 'node:crypto';
import {
  APICallError,
  InvalidResponseDataError,
  JSONParseError,
  type LanguageModelV3FinishReason,
  type LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import { finishReasonOf, responseMetadataOf, textOf, usageOf } from './chat-response';
import type { MidAnswerFailure } from './mid-answer';
import type { WireChunk, WireServerError, WireToolCallDelta, WireUsage } from './wire-types';

/** A tool call being streamed: its arguments grow with each delta until the answer ends. */
interface StreamedToolCall {
  /** The id the server gave (some reuse an index for a new call: a new id tells them apart). */
  wireId: string | undefined;
  id: string;
  name: string;
  args: string;
}

type Block = { kind: 'text' | 'reasoning'; id: string };

/**
 * Turns parsed `chat.completion.chunk`s into the SDK's V3 stream parts, in the order the SDK expects:
 * `response-metadata` once, text and reasoning in blocks (`-start`, `-delta`…, `-end`), each tool call as
 * `tool-input-start`, `tool-input-delta`… and, when the answer has ended, `tool-input-end` and one `tool-call` with
 * the whole JSON input; last `finish` with the finish reason and usage.
 *
 * Per chunk it does a few property reads and nothing else: no schema validation, no copies of the chunk.
 */
export class ChatChunkDecoder {
  private sawFirstChunk = false;
  private block: Block | undefined;
  private blockCount = 0;
  private readonly toolCalls: StreamedToolCall[] = [];
  private readonly toolCallsByIndex = new Map<number, StreamedToolCall>();
  private finishReason: LanguageModelV3FinishReason | undefined;
  private usage: WireUsage | undefined;
  /** An error part was sent: the answer is not trusted, so its tool calls are not handed on. */
  private failed = false;

  constructor(
    private readonly emit: (part: LanguageModelV3StreamPart) => void,
    /** For errors: where the answer came from. */
    private readonly url: string,
  ) {}

  chunk(chunk: WireChunk): void {
    if (chunk.error != null) {
      this.fail(serverError(chunk.error, this.url));
      return;
    }
    if (!this.sawFirstChunk) {
      this.sawFirstChunk = true;
      this.emit({ type: 'response-metadata', ...responseMetadataOf(chunk) });
    }
    if (chunk.usage != null) this.usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (choice == null) return; // the usage chunk has no choices
    if (choice.finish_reason != null) this.finishReason = finishReasonOf(choice.finish_reason);
    const delta = choice.delta;
    if (delta == null) return;
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (reasoning) this.blockDelta('reasoning', reasoning);
    const content = delta.content;
    if (content != null) {
      const text = typeof content === 'string' ? content : textOf(content);
      if (text) this.blockDelta('text', text);
    }
    const toolCalls = delta.tool_calls;
    if (toolCalls != null) for (const toolCall of toolCalls) this.toolCallDelta(toolCall);
  }

  /** A `data:` line that is not JSON (a server bug, or a cut line). */
  unreadable(data: string, cause: unknown): void {
    this.fail(new JSONParseError({ text: data, cause }));
  }

  /** The answer is over (`[DONE]` or the end of the body): close what is open and say how it finished. */
  end(): void {
    this.closeBlock();
    if (this.finishReason === undefined && !this.failed) {
      this.fail(
        new InvalidResponseDataError({
          data: undefined,
          message: "the model's answer ended before its finish reason (the stream was cut short)",
        }),
      );
    }
    if (!this.failed) {
      for (const call of this.toolCalls) {
        this.emit({ type: 'tool-input-end', id: call.id });
        // A call without arguments is a call with no input, which is `{}` to the SDK and to a JSON reader.
        this.emit({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.args || '{}' });
      }
    }
    this.emit({
      type: 'finish',
      finishReason: this.finishReason ?? { unified: 'error', raw: undefined },
      usage: usageOf(this.usage),
    });
  }

  private fail(error: Error): void {
    this.failed = true;
    this.finishReason = { unified: 'error', raw: this.finishReason?.raw };
    this.emit({ type: 'error', error });
  }

  private blockDelta(kind: Block['kind'], delta: string): void {
    let block = this.block;
    if (block?.kind !== kind) {
      this.closeBlock();
      block = this.block = { kind, id: `${kind === 'text' ? 'txt' : 'reasoning'}-${this.blockCount++}` };
      this.emit({ type: kind === 'text' ? 'text-start' : 'reasoning-start', id: block.id });
    }
    this.emit({ type: kind === 'text' ? 'text-delta' : 'reasoning-delta', id: block.id, delta });
  }

  private closeBlock(): void {
    const block = this.block;
    if (!block) return;
    this.block = undefined;
    this.emit({ type: block.kind === 'text' ? 'text-end' : 'reasoning-end', id: block.id });
  }

  private toolCallDelta(delta: WireToolCallDelta): void {
    const index = delta.index;
    const wireId = delta.id || undefined;
    const name = delta.function?.name || undefined;
    let call = index != null ? this.toolCallsByIndex.get(index) : undefined;
    if (call && wireId && call.wireId && wireId !== call.wireId) call = undefined;
    if (!call && index == null) {
      // Servers without indexes send one call at a time: an id or a name starts a new one, anything else continues.
      call = wireId
        ? this.toolCalls.find((c) => c.wireId === wireId)
        : name
          ? undefined
          : this.toolCalls.at(-1);
    }
    if (!call) {
      if (!name) return; // arguments for a call that never started: nothing to attach them to
      this.closeBlock();
      call = { wireId, id: wireId ?? `call_${randomUUID()}`, name, args: '' };
      this.toolCalls.push(call);
      if (index != null) this.toolCallsByIndex.set(index, call);
      this.emit({ type: 'tool-input-start', id: call.id, toolName: name });
    }
    const args = delta.function?.arguments;
    if (args) {
      call.args += args;
      this.emit({ type: 'tool-input-delta', id: call.id, delta: args });
    }
  }
}

/**
 * An error object sent in place of a chunk. It becomes an `APICallError` so that callers map it like an HTTP
 * error: with the server's status when its `code` is one (llama.cpp and vLLM send 4xx/5xx there), else 200,
 * the status the answer really had.
 */
function serverError(error: WireServerError, url: string): APICallError {
  const code = typeof error.code === 'number' && error.code >= 400 && error.code < 600 ? error.code : 200;
  return new APICallError({
    message: typeof error.message === 'string' ? error.message : 'the model server sent an error mid-answer',
    url,
    requestBodyValues: undefined,
    statusCode: code,
    responseBody: JSON.stringify({ error }),
    data: { midAnswer: 'error-object', error } satisfies MidAnswerFailure,
    isRetryable: false,
  });
}
