import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { Storage } from '@assistant/storage';
import {
  type ServerConfig,
  PublicAddress,
  repositoryProviders,
  SERVER_CONFIG,
  STORAGE,
} from '@assistant/server-kit';

/**
 * Hands the opened storage (whole, and each repository under its own token: `@InjectRepository('memories')`) and
 * the validated configuration to every feature module.
 */
@Global()
@Module({})
export class CoreModule {
  static register(storage: Storage, config: ServerConfig, address: PublicAddress): DynamicModule {
    const repositories = repositoryProviders(storage);
    return {
      module: CoreModule,
      providers: [
        { provide: STORAGE, useValue: storage },
        { provide: SERVER_CONFIG, useValue: config },
        { provide: PublicAddress, useValue: address },
        ...repositories,
      ],
      exports: [STORAGE, SERVER_CONFIG, PublicAddress, ...repositories],
    };
  }
}
