import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { isTerminalEvent } from '@assistant/contracts';
import { QUERY_EVENT_LOG } from './queries.tokens';
import { SERVER_CONFIG } from '../core.module';
import type { ServerConfig } from '../config/server-config';
import type { QueryEventLog } from './query-event-log';
import { SseStream } from './sse-stream';

/** Connects one HTTP response to a query's event log. A client that goes away only unsubscribes. */
@Injectable()
export class QueryStreamer {
  constructor(
    @Inject(QUERY_EVENT_LOG) private readonly log: QueryEventLog,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
  ) {}

  stream(queryId: string, after: number, reply: FastifyReply): void {
    // The client may have gone while the query was being prepared: nothing to stream to.
    if (reply.raw.destroyed) return;
    let unsubscribe: () => void = () => undefined;
    const sse = new SseStream(reply, this.config.queries.pingIntervalMs, () => unsubscribe());
    unsubscribe = this.log.subscribe(queryId, after, (event) => {
      sse.send(event);
      if (isTerminalEvent(event)) sse.end();
    });
    // Resuming a finished query after its last event: nothing more will come.
    const record = this.log.get(queryId);
    if (record?.endedAt && after >= this.log.events(queryId).length) sse.end();
  }
}
