import { Module, type DynamicModule } from '@nestjs/common';
import type { ToolFamily } from '@assistant/tool-kit';
import { SERVER_CONFIG, type ServerConfig, TOOL_CATALOGUE, secretsKeyOf } from '@assistant/server-kit';
import { ConnectionsController } from './connections.controller';
import { ConnectionsService } from './connections.service';
import { SecretBox } from './secret-box';
import { StoredConnections } from './stored-connections';
import { CONNECTION_SOURCE } from './connection-source';
import { TOOL_FAMILIES, ToolCatalog } from './tool-catalog';
import { ToolsController } from './tools.controller';
import { CUSTOM_TOOL_IMPORTER, CustomTools } from './custom/custom-tools';
import { importFresh, type ModuleImporter } from './custom/custom-tools-folder';
import { OAuthConnections } from './oauth-connections.service';

/**
 * The tool catalogue (for queries, `GET /tools` and MCP), the families it is built from (and a self-hosted
 * server's custom tools, one family more), and the connections resource that feeds it: one module, since the
 * catalogue reads connections and their changes notify it.
 */
@Module({})
export class ToolsModule {
  static register(families: readonly ToolFamily[], customToolImporter?: ModuleImporter): DynamicModule {
    return {
      module: ToolsModule,
      controllers: [ToolsController, ConnectionsController],
      providers: [
        { provide: CUSTOM_TOOL_IMPORTER, useValue: customToolImporter ?? importFresh },
        CustomTools,
        {
          provide: TOOL_FAMILIES,
          useFactory: (custom: CustomTools) => (custom.family ? [...families, custom.family] : families),
          inject: [CustomTools],
        },
        // At start-up: a hosted API without its key, or a data directory that cannot hold one, stops here.
        {
          provide: SecretBox,
          useFactory: (config: ServerConfig) => new SecretBox(secretsKeyOf(config)),
          inject: [SERVER_CONFIG],
        },
        StoredConnections,
        OAuthConnections,
        { provide: CONNECTION_SOURCE, useExisting: StoredConnections },
        ToolCatalog,
        { provide: TOOL_CATALOGUE, useExisting: ToolCatalog },
        ConnectionsService,
      ],
      // ConnectionsService and OAuthConnections also serve the connection pages (pages/).
      exports: [
        ToolCatalog,
        TOOL_CATALOGUE,
        TOOL_FAMILIES,
        CustomTools,
        ConnectionsService,
        OAuthConnections,
      ],
    };
  }
}
