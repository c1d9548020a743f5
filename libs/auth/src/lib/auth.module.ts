import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { TokensRepository } from '@assistant/storage';
import { TokenService, type TokenServiceOptions } from './token.service';
import { AccessGuard } from './access.guard';

@Module({})
export class AuthModule {
  /** Installs bearer authentication and the deny-by-default guard for the whole application. */
  static register(tokens: TokensRepository, options: TokenServiceOptions = {}): DynamicModule {
    return {
      module: AuthModule,
      global: true,
      providers: [
        { provide: TokenService, useValue: new TokenService(tokens, options) },
        { provide: APP_GUARD, useClass: AccessGuard },
      ],
      exports: [TokenService],
    };
  }
}
