import {
  APICallError,
  InvalidResponseDataError,
  type LanguageModelV3StreamPart,
  type SharedV3Warning,
} from '@ai-sdk/provider';
import { StringDecoder } from 'node:string_decoder';
import { ChatChunkDecoder } from './chat-chunk-decoder';
import type { ChatResponse } from './chat-endpoint';
import type { MidAnswerFailure } from './mid-answer';
import { networkModules, type NetworkModules } from './network-modules';
import type { PartSink, PushParts } from '../pushed-parts';
import type { WireChunk } from './wire-types';

/**
 * Parts buffered before the body is paused: a few chunks' worth, so that a reader a little behind does not pause
 * and resume the socket on every chunk, while a reader that stops (a slow SSE client) stops the socket soon.
 */
const BUFFERED_PARTS = 64;

interface ChatPartsContext {
  url: string;
  warnings: SharedV3Warning[];
  signal: AbortSignal | undefined;
}

/** How a started answer is slowed down or stopped. */
interface Flow {
  pause(): void;
  resume(): void;
  /** Closes the connection; nothing more is delivered. */
  cancel(): void;
}

/** The parts of a streamed answer (see ChatParts); the parser is loaded with the request already. */
export async function chatParts(response: ChatResponse, context: ChatPartsContext): Promise<ChatParts> {
  const { createParser } = await networkModules();
  return new ChatParts(response, context, createParser);
}

/**
 * The SSE body of a streamed answer as V3 parts: body bytes → `eventsource-parser` → `JSON.parse` →
 * `ChatChunkDecoder`, all inside the body's `data` event (no TransformStream layers), to one consumer: either a
 * callback (`push`, the step loop's way: nothing in between) or a web `ReadableStream` (`readable`, what the
 * SDK's interface says). The stream pauses the body when its reader falls `BUFFERED_PARTS` behind and resumes it
 * on its next read; a callback takes each part as it comes.
 *
 * Endings: `[DONE]` or the end of the body ends the answer (the decoder reports one cut short); an abort of
 * `signal` fails it with the signal's reason; any other failure of the body (the connection dropped) fails it
 * with an `APICallError` without status, like a connection that failed before the answer.
 */
export class ChatParts {
  private taken = false;
  private stream: ReadableStream<LanguageModelV3StreamPart> | undefined;

  constructor(
    private readonly response: ChatResponse,
    private readonly context: ChatPartsContext,
    private readonly createParser: NetworkModules['createParser'],
  ) {}

  /** Hands the answer to `sink`, unless `readable` has taken it. */
  readonly push: PushParts = (sink) => {
    if (this.taken) return undefined;
    this.taken = true;
    return this.start(sink).cancel;
  };

  /** The answer as a web stream, made on first use; an errored one if `push` has taken the answer. */
  get readable(): ReadableStream<LanguageModelV3StreamPart> {
    if (!this.stream) {
      this.stream = this.taken
        ? new ReadableStream({
            start: (controller) => controller.error(new Error('the answer was taken by its pushed parts')),
          })
        : this.makeReadable();
      this.taken = true;
    }
    return this.stream;
  }

  private makeReadable(): ReadableStream<LanguageModelV3StreamPart> {
    let flow: Flow | undefined;
    let paused = false;
    return new ReadableStream<LanguageModelV3StreamPart>(
      {
        start: (controller) => {
          flow = this.start({
            part(part) {
              controller.enqueue(part);
              if (!paused && (controller.desiredSize ?? 1) <= 0) {
                paused = true;
                flow?.pause();
              }
            },
            end: () => controller.close(),
            fail: (error) => controller.error(error),
          });
        },
        pull() {
          if (paused) {
            paused = false;
            flow?.resume();
          }
        },
        cancel() {
          flow?.cancel();
        },
      },
      { highWaterMark: BUFFERED_PARTS },
    );
  }

  private start(sink: PartSink): Flow {
    const { body } = this.response;
    const { url, signal, warnings } = this.context;
    let done = false;
    const decoder = new ChatChunkDecoder((part) => sink.part(part), url);

    const end = (): void => {
      if (done) return;
      done = true;
      decoder.end();
      sink.end();
      body.resume(); // let the rest (the chunked terminator) drain, so the connection goes back to the pool
    };
    const fail = (error: unknown): void => {
      if (done) return;
      done = true;
      sink.fail(error);
      body.destroy();
    };

    const parser = this.createParser({
      onEvent(event) {
        if (done) return;
        const data = event.data;
        if (data === '[DONE]') {
          end();
          return;
        }
        let chunk: unknown;
        try {
          chunk = JSON.parse(data);
        } catch (cause) {
          decoder.unreadable(data, cause);
          return;
        }
        if (typeof chunk !== 'object' || chunk === null) {
          decoder.unreadable(data, new Error('a chunk must be a JSON object'));
          return;
        }
        try {
          decoder.chunk(chunk as WireChunk);
        } catch (error) {
          // A chunk of a shape no server sends (e.g. `choices` not an array): the answer cannot be read further.
          fail(
            new InvalidResponseDataError({
              data,
              message: `unreadable chunk from the model: ${String(error)}`,
            }),
          );
        }
      },
    });

    sink.part({ type: 'stream-start', warnings });
    // undici's body ignores setEncoding: decode here, keeping characters split across reads whole.
    const utf8 = new StringDecoder('utf8');
    body.on('data', (bytes: Buffer) => parser.feed(utf8.write(bytes)));
    body.on('end', end);
    body.on('error', (error: Error) => {
      if (signal?.aborted) fail(signal.reason ?? error);
      else
        fail(
          new APICallError({
            message: `the connection to the model closed mid-answer: ${error.message}`,
            cause: error,
            url,
            requestBodyValues: undefined,
            isRetryable: true,
            data: { midAnswer: 'connection-closed' } satisfies MidAnswerFailure,
          }),
        );
    });
    return {
      pause: () => {
        if (!done) body.pause();
      },
      resume: () => body.resume(),
      cancel: () => {
        done = true;
        body.destroy();
      },
    };
  }
}
