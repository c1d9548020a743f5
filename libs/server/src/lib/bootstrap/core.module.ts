import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { Storage } from '@assistant/storage';
import { type ServerConfig, PublicAddress, SERVER_CONFIG, STORAGE } from '@assistant/server-kit';

/** Hands the opened storage and the validated configuration to every feature module. */
@Global()
@Module({})
export class CoreModule {
  static register(storage: Storage, config: ServerConfig, address: PublicAddress): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: STORAGE, useValue: storage },
        { provide: SERVER_CONFIG, useValue: config },
        { provide: PublicAddress, useValue: address },
      ],
      exports: [STORAGE, SERVER_CONFIG, PublicAddress],
    };
  }
}
