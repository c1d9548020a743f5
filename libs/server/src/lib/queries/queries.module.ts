import { Module, type DynamicModule } from '@nestjs/common';
import { QueriesController } from './queries.controller';
import { QueriesService } from './queries.service';
import { QueryStreamer } from './query-streamer';
import { QUERY_EVENT_LOG } from './queries.tokens';
import type { QueryEventLog } from './query-event-log';

@Module({})
export class QueriesModule {
  static register(eventLog: QueryEventLog): DynamicModule {
    return {
      module: QueriesModule,
      controllers: [QueriesController],
      providers: [QueriesService, QueryStreamer, { provide: QUERY_EVENT_LOG, useValue: eventLog }],
    };
  }
}
