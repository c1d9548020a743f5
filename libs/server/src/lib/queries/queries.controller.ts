import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import {
  createQuerySchema,
  queryEventsQuerySchema,
  type CreateQuery,
  type Query as QueryResource,
} from '@assistant/contracts';
import { CurrentPrincipal, Scopes, type Principal } from '@assistant/auth';
import { validBody, validQuery } from '../http/zod-validation.pipe';
import { ApiError } from '../http/api-error';
import { QueriesService } from './queries.service';
import { QueryStreamer } from './query-streamer';

@Controller('queries')
export class QueriesController {
  constructor(
    private readonly queries: QueriesService,
    private readonly streamer: QueryStreamer,
  ) {}

  /** Starts a query and answers with its event stream (SPEC §4). Errors before the stream are problem+json. */
  @Post()
  @Scopes('write:queries')
  async create(
    @CurrentPrincipal() p: Principal,
    @Body(validBody(createQuerySchema)) body: CreateQuery,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const record = await this.queries.start(p, body);
    this.streamer.stream(record.id, 0, reply);
  }

  @Get(':id')
  @Scopes('write:queries')
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string): QueryResource {
    return this.queries.present(this.queries.find(p.userId, id));
  }

  /** The stream again: every event after `Last-Event-ID` (or `?after=`), then live until the terminal event. */
  @Get(':id/events')
  @Scopes('write:queries')
  events(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Query(validQuery(queryEventsQuerySchema)) query: { after?: number },
    @Headers('last-event-id') lastEventId: string | undefined,
    @Res() reply: FastifyReply,
  ): void {
    const record = this.queries.find(p.userId, id);
    const after = lastEventId !== undefined ? parseLastEventId(lastEventId) : (query.after ?? 0);
    if (after > this.queries.present(record).last_event_id) {
      const field = lastEventId !== undefined ? 'Last-Event-ID' : 'after';
      throw ApiError.validation([{ field, message: 'is beyond the last event of this query' }]);
    }
    this.streamer.stream(record.id, after, reply);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @Scopes('write:queries')
  cancel(@CurrentPrincipal() p: Principal, @Param('id') id: string): QueryResource {
    return this.queries.present(this.queries.cancel(p.userId, id));
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
