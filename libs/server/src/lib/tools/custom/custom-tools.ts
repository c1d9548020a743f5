import { mkdirSync } from 'node:fs';
import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { ToolFamily } from '@assistant/tool-kit';
import { SERVER_CONFIG, type ServerConfig } from '@assistant/server-kit';
import { CustomToolsFolder, type ModuleImporter } from './custom-tools-folder';
import { customFamily } from './custom-family';

/** How custom tool modules are imported (ServerParts.customToolImporter). */
export const CUSTOM_TOOL_IMPORTER = Symbol('CUSTOM_TOOL_IMPORTER');

/**
 * The self-hosted server's custom tools (SPEC §6): the `custom` family over the folder of `customToolsDir`, read
 * before the server listens and watched while it runs. None on the hosted API, which has no such folder.
 */
@Injectable()
export class CustomTools implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('CustomTools');
  private readonly folder: CustomToolsFolder | undefined;
  /** The family the catalogue adds, when this server has a tools folder. */
  readonly family: ToolFamily | undefined;

  constructor(
    @Inject(SERVER_CONFIG) config: ServerConfig,
    @Inject(CUSTOM_TOOL_IMPORTER) importModule: ModuleImporter,
  ) {
    if (!config.customToolsDir) return;
    this.folder = new CustomToolsFolder({
      folder: config.customToolsDir,
      importModule,
      // One line a skipped module, naming its file and why; the other modules load.
      onSkipped: ({ file, reason }) =>
        this.logger.warn({ file, reason, msg: `custom tool module ${file} skipped: ${reason}` }),
      onError: (error) =>
        this.logger.warn({
          folder: config.customToolsDir,
          msg: `stopped watching the custom tools folder ${config.customToolsDir}: ${error.message}`,
        }),
    });
    this.family = customFamily(this.folder);
  }

  /** Where the modules are read from, and the names of the tools that loaded. */
  describe(): { folder: string; tools: string[] } | undefined {
    return this.folder && { folder: this.folder.folder, tools: this.folder.tools.map((tool) => tool.name) };
  }

  async onModuleInit(): Promise<void> {
    if (!this.folder) return;
    // The default folder (<data-dir>/tools) is made on first start, so that it is there to put modules in.
    mkdirSync(this.folder.folder, { recursive: true });
    await this.folder.load();
    this.folder.watch();
    this.logger.log({
      msg: `custom tools from ${this.folder.folder}: ${this.folder.tools.map((t) => t.name).join(', ') || 'none'}`,
    });
  }

  onApplicationShutdown(): void {
    this.folder?.close();
  }
}
