import { Inject, Injectable, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { isTerminalEvent } from '@assistant/contracts';
import { QUERY_EVENT_LOG } from './query-event-log.provider';
import { SERVER_CONFIG } from '../ports/core-tokens';
import type { ServerConfig } from '../config/server-config';
import type { QueryEventLog } from './query-event-log';
import { SseStream } from './sse-stream';

/** Connects one HTTP response to a query's event log. A client that goes away only unsubscribes. */
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
    let unsubscribe: () => void = () => undefined;
    const sse = new SseStream(reply, this.config.queries.pingIntervalMs, () => {
      closed = true;
      unsubscribe();
    });
    const attach = async () => {
      const stop = await this.log.subscribe(queryId, after, (event) => {
        sse.send(event);
        if (isTerminalEvent(event)) sse.end();
      });
      if (closed) return stop();
      unsubscribe = stop;
      // Resuming a finished query after its last event: nothing more will come.
      const record = await this.log.get(queryId);
      if (record?.endedAt && after >= record.lastEventId) sse.end();
    };
    attach().catch((error: unknown) => {
      this.logger.error({ err: error, query_id: queryId, msg: 'could not stream query events' });
      sse.end();
    });
  }
}
