import { Controller, Headers, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { Confirmation, CreateQuery, Query as QueryResource } from '@assistant/contracts';
import { CurrentPrincipal, type Principal } from '@assistant/auth';
import { Route, RouteBody, RouteQuery, ApiError } from '@assistant/server-kit';
import { QueriesService } from './queries.service';
import { QueryStreamer } from './query-streamer';

/**
 * How long a resume waits for the event its Last-Event-ID names to be known here before refusing it. On the hosted
 * API an instance hears another's text deltas through Redis, up to 50 ms after the runner's own streams had them
 * (redis-query-event-log.ts): a client that resumes on another instance at once may have seen events this one
 * does not know yet. A running query only; one that has ended is known whole.
 */
const CATCH_UP_MS = 250;
const CATCH_UP_POLL_MS = 10;

@Controller()
export class QueriesController {
  constructor(
    private readonly queries: QueriesService,
    private readonly streamer: QueryStreamer,
  ) {}

  /** Starts a query and answers with its event stream (SPEC §4). Errors before the stream are problem+json. */
  @Route('createQuery')
  async create(
    @CurrentPrincipal() p: Principal,
    @RouteBody() body: CreateQuery,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const record = await this.queries.start(p, body);
    await modelRequestWritten();
    this.streamer.stream(record.id, 0, reply);
  }

  @Route('getQuery')
  async get(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<QueryResource> {
    return this.queries.present(await this.queries.find(p, id));
  }

  /** The stream again: every event after `Last-Event-ID` (or `?after=`), then live until the terminal event. */
  @Route('queryEvents')
  async events(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @RouteQuery() query: { after?: number },
    @Headers('last-event-id') lastEventId: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    let record = await this.queries.find(p, id);
    const after = lastEventId !== undefined ? parseLastEventId(lastEventId) : (query.after ?? 0);
    const deadline = performance.now() + CATCH_UP_MS;
    while (after > record.lastEventId && record.endedAt === null && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, CATCH_UP_POLL_MS));
      record = await this.queries.find(p, id);
    }
    if (after > record.lastEventId) {
      const field = lastEventId !== undefined ? 'Last-Event-ID' : 'after';
      throw ApiError.validation([{ field, message: 'is beyond the last event of this query' }]);
    }
    this.streamer.stream(record.id, after, reply);
  }

  @Route('cancelQuery')
  async cancel(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<QueryResource> {
    return this.queries.present(await this.queries.cancel(p, id));
  }

  @Route('confirmToolCall')
  async confirm(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Param('call_id') callId: string,
    @RouteBody() body: Confirmation,
  ): Promise<QueryResource> {
    return this.queries.present(await this.queries.confirm(p, id, callId, body.approve));
  }
}

/**
 * Resolves after the model request that `start` dispatched has been written (or, on a new connection, while it
 * connects). undici writes a request on a reused keep-alive connection in the event loop's check phase (it first
 * reads what the idle socket may have received, with a setImmediate), so whatever runs before then delays the
 * model call: the stream's set-up (its headers and the replay of `query.created`, ~0.25 ms) waits for the next
 * check phase instead, and is done while the model thinks. Events wait in the log meanwhile; none is lost.
 */
function modelRequestWritten(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function parseLastEventId(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    throw ApiError.validation([
      { field: 'Last-Event-ID', message: 'must be the id of an event of this query' },
    ]);
  }
  return n;
}
