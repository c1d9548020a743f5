import { Module, type DynamicModule } from '@nestjs/common';
import { QueriesController } from './queries.controller';
import { QueriesService } from './queries.service';
import { QueryStreamer } from './query-streamer';
import { QueryRecovery } from './query-recovery';
import { queryEventLogProviders } from './query-event-log.provider';
import type { QueryEventLog } from './query-event-log';

@Module({})
export class QueriesModule {
  /** @param eventLog the deployment's live query event log; this module writes it behind to the database. */
  static register(eventLog: QueryEventLog): DynamicModule {
    return {
      module: QueriesModule,
      // Global for QueriesService alone: deleting a discussion cancels its runs first (DiscussionsService).
      global: true,
      controllers: [QueriesController],
      providers: [QueriesService, QueryStreamer, QueryRecovery, ...queryEventLogProviders(eventLog)],
      exports: [QueriesService],
    };
  }
}
