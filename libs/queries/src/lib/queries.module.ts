import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { ModelCatalog } from '@assistant/agent-core';
import {
  CONFIRMATION_EXCHANGE,
  SERVER_CONFIG,
  type ConfirmationExchange,
  type ServerConfig,
  type QueryEventLog,
  TOOL_CATALOGUE,
  type ToolCatalogue,
} from '@assistant/server-kit';
import { PendingConfirmations } from './pending-confirmations';
import { QueriesController } from './queries.controller';
import { QueriesService } from './queries.service';
import { QueryStreamer } from './query-streamer';
import { QueryRecovery } from './query-recovery';
import { queryEventLogProviders } from './query-event-log.provider';

/** What a run is built with, made once per server from its settings. */
const RUN_PARTS: Provider[] = [
  {
    provide: ModelCatalog,
    // The built-in model knows every family's phrasings; each run's tools decide what it can do.
    useFactory: (config: ServerConfig, catalogue: ToolCatalogue) =>
      new ModelCatalog(config.queries.models, catalogue.families),
    inject: [SERVER_CONFIG, TOOL_CATALOGUE],
  },
  {
    provide: PendingConfirmations,
    useFactory: (config: ServerConfig, exchange: ConfirmationExchange) =>
      new PendingConfirmations(config.queries.confirmationTimeoutMs, exchange),
    inject: [SERVER_CONFIG, CONFIRMATION_EXCHANGE],
  },
];

@Module({})
export class QueriesModule {
  /**
   * @param eventLog the deployment's live query event log; this module writes it behind to the database.
   * @param tools the tools module (ToolsModule.register) whose catalogue and families the runs use.
   */
  static register(eventLog: QueryEventLog, tools: DynamicModule): DynamicModule {
    return {
      module: QueriesModule,
      imports: [tools],
      controllers: [QueriesController],
      providers: [
        ...RUN_PARTS,
        QueriesService,
        QueryStreamer,
        QueryRecovery,
        ...queryEventLogProviders(eventLog),
      ],
      exports: [QueriesService],
    };
  }
}
