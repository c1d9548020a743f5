import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AuthModule } from '@assistant/auth';
import type { Storage } from '@assistant/storage';
import type { ServerConfig } from './config/server-config';
import { CoreModule } from './storage.module';
import { ProblemFilter } from './http/problem.filter';
import { AccountModule } from './account/account.module';
import { DiscussionsModule } from './discussions/discussions.module';
import { MemoriesModule } from './memories/memories.module';
import { TokensModule } from './tokens/tokens.module';
import { MetaModule } from './meta/meta.module';
import { QueriesModule } from './queries/queries.module';
import { MemoryQueryEventLog } from './queries/query-event-log';

/** The whole API as one Nest module; both deployments compose it with their own storage and configuration. */
@Module({})
export class AppModule {
  static register(storage: Storage, config: ServerConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.register(storage, config),
        AuthModule.register(storage.tokens, { cacheTtlMs: config.tokenCacheTtlMs }),
        AccountModule,
        DiscussionsModule,
        MemoriesModule,
        TokensModule,
        MetaModule,
        QueriesModule.register(new MemoryQueryEventLog()),
      ],
      providers: [{ provide: APP_FILTER, useClass: ProblemFilter }],
    };
  }
}
