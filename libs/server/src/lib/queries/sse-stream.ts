import type { FastifyReply } from 'fastify';
import type { QueryEvent } from '@assistant/contracts';

/**
 * One server-sent-events response. Takes the reply over from Fastify (keeping the headers the hooks already
 * set: rate limits, request id), writes each event as `id` / `event` / `data`, and a `: ping` comment at an
 * interval (15 s by default) so that proxies keep the connection open.
 */
export class SseStream {
  private readonly ping: NodeJS.Timeout;
  private ended = false;

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
    reply.raw.flushHeaders();
    this.ping = setInterval(() => this.writeRaw(': ping\n\n'), pingIntervalMs);
    this.ping.unref();
    reply.raw.on('close', () => {
      this.stop();
      onClose();
    });
  }

  send(event: QueryEvent): void {
    this.writeRaw(`id: ${event.sequence_number}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  }

  end(): void {
    if (this.ended) return;
    this.stop();
    this.reply.raw.end();
  }

  private writeRaw(chunk: string): void {
    if (!this.ended) this.reply.raw.write(chunk);
  }

  private stop(): void {
    this.ended = true;
    clearInterval(this.ping);
  }
}
