import type { FastifyReply } from 'fastify';
import type { QueryEvent } from '@assistant/contracts';
import { eventJson } from './event-json';

/**
 * The last frame made, and its event. A query's subscribers get each event one after the other, so this one entry
 * serializes it once for all of them, and keeps nothing else alive.
 */
let lastEvent: QueryEvent | undefined;
let lastFrame = '';

/** The `id` / `event` / `data` frame of an event (SPEC §4). */
export function frameOf(event: QueryEvent): string {
  if (event !== lastEvent) {
    lastFrame = `id: ${event.sequence_number}\nevent: ${event.type}\ndata: ${eventJson(event)}\n\n`;
    lastEvent = event;
  }
  return lastFrame;
}

/**
 * How much a stream may hold that its reader has not taken, before it stops taking events from the log until the
 * reader catches up. A reader that stops reading would otherwise have the whole query's frames held for it in this
 * process's memory (a 20 MiB answer, 20 MiB per such reader). Far above what any answer sends while its reader
 * keeps up (a few KiB), so a reader that keeps up never waits, and a large replay is sent in a few pieces.
 */
export const STREAM_BACKLOG_BYTES = 1024 * 1024;

/**
 * One server-sent-events response. Takes the reply over from Fastify (keeping the headers the hooks already
 * set: rate limits, request id), writes each event as `id` / `event` / `data`, and a `: ping` comment at an
 * interval (15 s by default) so that proxies keep the connection open.
 *
 * Frames written in the same tick already leave in one socket write: Node's HTTP response corks its socket at a
 * tick's first write and uncorks it on the next tick.
 */
export class SseStream {
  private readonly ping: NodeJS.Timeout;
  private ended = false;
  private wrote = false;

  constructor(
    private readonly reply: FastifyReply,
    pingIntervalMs: number,
    onClose: () => void,
  ) {
    reply.hijack();
    const headers = { ...reply.getHeaders() } as Record<string, string | number | string[]>;
    reply.raw.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    // The headers leave with the first frame, written within this tick when events are replayed at once: one
    // socket write less per stream. With nothing to replay yet (a query held elsewhere), they leave alone, next.
    setImmediate(() => {
      if (!this.wrote && !this.ended) reply.raw.flushHeaders();
    });
    this.ping = setInterval(() => this.writeRaw(': ping\n\n'), pingIntervalMs);
    this.ping.unref();
    reply.raw.on('close', () => {
      this.stop();
      onClose();
    });
  }

  /** Writes the event; false when the reader is STREAM_BACKLOG_BYTES behind, and no more should be sent yet. */
  send(event: QueryEvent): boolean {
    this.writeRaw(frameOf(event));
    return this.reply.raw.writableLength < STREAM_BACKLOG_BYTES;
  }

  /** Calls `then` once the reader has taken everything written (not if the stream closes first). */
  whenDrained(then: () => void): void {
    this.reply.raw.once('drain', then);
  }

  end(): void {
    if (this.ended) return;
    this.stop();
    this.reply.raw.end();
  }

  private writeRaw(chunk: string): void {
    if (this.ended) return;
    this.wrote = true;
    this.reply.raw.write(chunk);
  }

  private stop(): void {
    this.ended = true;
    clearInterval(this.ping);
  }
}
