import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { ToolFamily } from '@assistant/tool-kit';
import { CONNECTION_SOURCE, NO_CONNECTIONS } from './connection-source';
import { TOOL_FAMILIES, ToolCatalog } from './tool-catalog';
import { ToolsController } from './tools.controller';

/** The tool catalogue (for queries, `GET /tools` and later MCP) and the families it is built from. */
@Global()
@Module({})
export class ToolsModule {
  static register(families: readonly ToolFamily[]): DynamicModule {
    return {
      module: ToolsModule,
      controllers: [ToolsController],
      providers: [
        { provide: TOOL_FAMILIES, useValue: families },
        { provide: CONNECTION_SOURCE, useValue: NO_CONNECTIONS },
        ToolCatalog,
      ],
      exports: [ToolCatalog, TOOL_FAMILIES],
    };
  }
}
