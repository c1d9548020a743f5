import { Controller, Headers, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { Confirmation, CreateQuery, Query as QueryResource } from '@assistant/contracts';
import { CurrentPrincipal, type Principal } from '@assistant/auth';
import { Route, RouteBody, RouteQuery } from '../routing/route.decorator';
import { ApiError } from '../http/api-error';
import { QueriesService } from './queries.service';
import { QueryStreamer } from './query-streamer';

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
    this.streamer.stream(record.id, 0, reply);
  }

  @Route('getQuery')
  async get(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<QueryResource> {
    return this.queries.present(await this.queries.find(p.userId, id));
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
    const record = await this.queries.find(p.userId, id);
    const after = lastEventId !== undefined ? parseLastEventId(lastEventId) : (query.after ?? 0);
    if (after > this.queries.present(record).last_event_id) {
      const field = lastEventId !== undefined ? 'Last-Event-ID' : 'after';
      throw ApiError.validation([{ field, message: 'is beyond the last event of this query' }]);
    }
    this.streamer.stream(record.id, after, reply);
  }

  @Route('cancelQuery')
  async cancel(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<QueryResource> {
    return this.queries.present(await this.queries.cancel(p.userId, id));
  }

  @Route('confirmToolCall')
  async confirm(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Param('call_id') callId: string,
    @RouteBody() body: Confirmation,
  ): Promise<QueryResource> {
    return this.queries.present(await this.queries.confirm(p.userId, id, callId, body.approve));
  }
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
