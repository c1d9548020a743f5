import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** One event of 8 MiB is far beyond any real one (a whole answer fits in `query.completed`). */
const MAX_EVENT_CHARS = 8 * 1024 * 1024;

/** Thrown inside the reader when nothing, not even a `: ping`, arrived for too long. */
export class IdleTimeoutError extends Error {
  override name = 'IdleTimeoutError';
}

export interface ReadEventsOptions {
  /** Called to break the connection (aborts the fetch). */
  abort: (reason: unknown) => void;
  /** Milliseconds without a byte before the connection counts as dead; 0 turns the check off. */
  idleTimeoutMs: number;
  /** The server's `retry:` field. */
  onRetry?: (milliseconds: number) => void;
}

/**
 * The messages of a `text/event-stream` body, in order, as they complete. Chunks may split lines, events
 * and even UTF-8 characters anywhere. Comments (`: ping`) are dropped. Ends when the body ends; an event
 * left unfinished at the end is discarded (as EventSource does). A broken connection rejects.
 *
 * The idle timer runs only while this generator waits for bytes, never while its consumer is busy.
 */
export async function* readEvents(
  body: AsyncIterable<Uint8Array>,
  options: ReadEventsOptions,
): AsyncGenerator<EventSourceMessage, void, undefined> {
  const queue: EventSourceMessage[] = [];
  let parseFailure: Error | undefined;
  const parser = createParser({
    maxBufferSize: MAX_EVENT_CHARS,
    onEvent: (message) => queue.push(message),
    onRetry: options.onRetry,
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') parseFailure = error;
      // Unknown fields are ignored, as the SSE standard says.
    },
  });
  const decoder = new TextDecoder();
  const chunks = body[Symbol.asyncIterator]();
  try {
    for (;;) {
      const { done, value } = await nextWithTimeout(chunks, options);
      if (done) {
        const rest = decoder.decode();
        if (rest) parser.feed(rest);
        while (queue.length > 0) yield queue.shift()!;
        return;
      }
      parser.feed(decoder.decode(value, { stream: true }));
      if (parseFailure) throw parseFailure;
      while (queue.length > 0) yield queue.shift()!;
    }
  } finally {
    // Stops the body (a web stream is cancelled, a node:http response destroyed).
    chunks.return?.()?.catch(() => undefined);
  }
}

async function nextWithTimeout(
  chunks: AsyncIterator<Uint8Array>,
  options: ReadEventsOptions,
): Promise<IteratorResult<Uint8Array>> {
  if (!options.idleTimeoutMs) return chunks.next();
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      chunks.next(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const error = new IdleTimeoutError(
            `no data for ${options.idleTimeoutMs} ms (the server pings every 15 s)`,
          );
          options.abort(error);
          reject(error);
        }, options.idleTimeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
