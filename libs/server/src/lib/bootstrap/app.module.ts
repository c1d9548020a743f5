import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AuthModule } from '@assistant/auth';
import type { ServerParts } from './server-parts';
import {
  type ServerConfig,
  ProblemFilter,
  RoutingModule,
  listeningUrl,
  PublicAddress,
} from '@assistant/server-kit';
import { CoreModule } from './core.module';
import { AccountsModule } from '../accounts/accounts.module';
import { DiscussionsModule } from '../discussions/discussions.module';
import { MemoriesModule } from '../memories/memories.module';
import { TokensModule } from '../tokens/tokens.module';
import { DevicesModule } from '../devices/devices.module';
import { MetaModule } from '../meta/meta.module';
import { HealthModule } from '../health/health.module';
import { MetricsModule } from '../metrics/metrics.module';
import { QueriesModule } from '@assistant/queries';
import { ClusterModule, clusterBusOf } from '../cluster/cluster.module';
import { ToolsModule } from '../tools/tools.module';
import { FAMILIES } from '../tools/families';
import { OAuthModule } from '@assistant/oauth';
import { McpModule } from '@assistant/mcp-server';
import { WebModule, WebAppModule } from '@assistant/web';
import { ConnectionPagesModule } from '../tools/pages/connection-pages.module';

/** The whole API as one Nest module; both deployments compose it with their own storage and configuration. */
@Module({})
export class AppModule {
  static register(
    config: ServerConfig,
    { storage, queryEvents, families, customToolImporter, readinessChecks, cluster }: ServerParts,
  ): DynamicModule {
    const address = new PublicAddress(config.publicUrl, listeningUrl(config.host, config.port));
    const bus = clusterBusOf(cluster);
    // Built once and imported by the features that use them, so that each is one module instance.
    const tools = ToolsModule.register(families ?? FAMILIES, customToolImporter);
    const queries = QueriesModule.register(queryEvents, tools);
    return {
      module: AppModule,
      imports: [
        CoreModule.register(storage, config, address),
        AuthModule.register(storage.tokens, {
          cacheTtlMs: config.tokenCacheTtlMs,
          oauth: { records: storage.oauth, audience: () => address.apiResource },
          // Revocations made here reach the deployment's other processes (ClusterFanout hears theirs).
          onForget: (match) => bus.publish('principals.forgotten', match),
        }),
        ClusterModule.register(cluster, bus),
        WebModule,
        WebAppModule.register(DevicesModule),
        OAuthModule,
        McpModule.register(tools),
        AccountsModule.register(tools),
        DiscussionsModule.register(queries),
        MemoriesModule,
        TokensModule,
        DevicesModule,
        MetaModule,
        HealthModule.register(readinessChecks),
        MetricsModule.register(config),
        tools,
        ConnectionPagesModule.register(tools),
        queries,
        RoutingModule.register(),
      ],
      providers: [{ provide: APP_FILTER, useClass: ProblemFilter }],
    };
  }
}
