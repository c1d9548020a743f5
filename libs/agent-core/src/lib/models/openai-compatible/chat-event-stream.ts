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
import { networkModules } from './network-modules';
import type { WireChunk } from './wire-types';

/**
 * Parts buffered before the body is paused: a few chunks' worth, so that a reader a little behind does not pause
 * and resume the socket on every chunk, while a reader that stops (a slow SSE client) stops the socket soon.
 */
const BUFFERED_PARTS = 64;

/**
 * The SSE body of a streamed answer as one `ReadableStream` of V3 parts: body bytes → `eventsource-parser` →
 * `JSON.parse` → `ChatChunkDecoder` → `enqueue`, all inside the body's `data` event (no TransformStream layers).
 * Backpressure: the body is paused when the reader falls `BUFFERED_PARTS` behind and resumed on its next read.
 *
 * Endings: `[DONE]` or the end of the body ends the answer (the decoder reports one cut short); an abort of
 * `signal` errors the stream with the signal's reason; any other failure of the body (the connection dropped)
 * errors it with an `APICallError` without status, like a connection that failed before the answer.
 */
export async function chatEventStream(
  response: ChatResponse,
  context: { url: string; warnings: SharedV3Warning[]; signal: AbortSignal | undefined },
): Promise<ReadableStream<LanguageModelV3StreamPart>> {
  const { createParser } = await networkModules(); // loaded already: the request needed undici
  const { body } = response;
  let controller!: ReadableStreamDefaultController<LanguageModelV3StreamPart>;
  let done = false;
  let paused = false;
  const decoder = new ChatChunkDecoder((part) => controller.enqueue(part), context.url);

  const end = (): void => {
    if (done) return;
    done = true;
    decoder.end();
    controller.close();
    body.resume(); // let the rest (the chunked terminator) drain, so the connection goes back to the pool
  };
  const fail = (error: unknown): void => {
    if (done) return;
    done = true;
    controller.error(error);
    body.destroy();
  };

  const parser = createParser({
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

  return new ReadableStream<LanguageModelV3StreamPart>(
    {
      start(streamController) {
        controller = streamController;
        controller.enqueue({ type: 'stream-start', warnings: context.warnings });
        // undici's body ignores setEncoding: decode here, keeping characters split across reads whole.
        const utf8 = new StringDecoder('utf8');
        body.on('data', (bytes: Buffer) => {
          parser.feed(utf8.write(bytes));
          if (!done && (controller.desiredSize ?? 1) <= 0) {
            paused = true;
            body.pause();
          }
        });
        body.on('end', end);
        body.on('error', (error: Error) => {
          if (context.signal?.aborted) fail(context.signal.reason ?? error);
          else
            fail(
              new APICallError({
                message: `the connection to the model closed mid-answer: ${error.message}`,
                cause: error,
                url: context.url,
                requestBodyValues: undefined,
                isRetryable: true,
                data: { midAnswer: 'connection-closed' } satisfies MidAnswerFailure,
              }),
            );
        });
      },
      pull() {
        if (paused) {
          paused = false;
          body.resume();
        }
      },
      cancel() {
        done = true;
        body.destroy();
      },
    },
    { highWaterMark: BUFFERED_PARTS },
  );
}
