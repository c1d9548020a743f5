import { Inject, Injectable, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { isTerminalEvent } from '@assistant/contracts';
import { QUERY_EVENT_LOG } from './query-event-log.provider';
import { SERVER_CONFIG, type ServerConfig, type QueryEventLog } from '@assistant/server-kit';
import { SseStream } from './sse-stream';

/**
 * Connects one HTTP response to a query's event log. A client that goes away only unsubscribes. A reader that falls
 * STREAM_BACKLOG_BYTES behind is unsubscribed until it has taken what was written, then subscribed again after the
 * last event it was sent: what it has not read waits in the log, not in this process's memory.
 */
@Injectable()
export class QueryStreamer {
  private readonly logger = new Logger('QueryStreamer');

  constructor(
    @Inject(QUERY_EVENT_LOG) private readonly log: QueryEventLog,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
  ) {}

  /** Streams the events after `after`; never rejects (the response has been taken over from Nest). */
  stream(queryId: string, after: number, reply: FastifyReply): void {
    // The client may have gone while the query was being prepared: nothing to stream to.
    if (reply.raw.destroyed) return;
    let closed = false;
    let lastSent = after;
    let unsubscribe: () => void = () => undefined;
    const sse = new SseStream(reply, this.config.queries.pingIntervalMs, () => {
      closed = true;
      unsubscribe();
    });
    const failed = (error: unknown) => {
      this.logger.error({ err: error, query_id: queryId, msg: 'could not stream query events' });
      sse.end();
    };
    const attach = async (from: number) => {
      // Per subscription: once paused, this one sends nothing more; the next starts after `lastSent`.
      let paused = false;
      const stop = await this.log.subscribe(queryId, from, (event) => {
        if (paused || closed) return;
        lastSent = event.sequence_number;
        const more = sse.send(event);
        if (isTerminalEvent(event)) return sse.end();
        if (more) return;
        paused = true;
        unsubscribe();
        sse.whenDrained(() => {
          if (!closed) attach(lastSent).catch(failed);
        });
      });
      // Paused while the log replayed (or closed meanwhile): this subscription is done.
      if (closed || paused) return stop();
      unsubscribe = stop;
      // Resuming a finished query after its last event: nothing more will come.
      const record = await this.log.get(queryId);
      if (record?.endedAt && from >= record.lastEventId) sse.end();
    };
    attach(after).catch(failed);
  }
}
