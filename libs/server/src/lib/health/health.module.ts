import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { Storage } from '@assistant/storage';
import { STORAGE } from '@assistant/server-kit';
import { HealthController } from './health.controller';
import { databaseCheck, migrationsCheck, Readiness, type ReadinessCheck } from './readiness';

/**
 * `/healthz` and `/readyz`. Readiness is global so that any module can add a check (`Readiness.add`); the
 * deployment's own parts (Redis) hand theirs in through ServerParts.readinessChecks.
 */
@Global()
@Module({})
export class HealthModule {
  static register(partChecks: readonly ReadinessCheck[] = []): DynamicModule {
    return {
      module: HealthModule,
      controllers: [HealthController],
      providers: [
        {
          provide: Readiness,
          inject: [STORAGE],
          useFactory: (storage: Storage) =>
            new Readiness([databaseCheck(storage), migrationsCheck(storage), ...partChecks]),
        },
      ],
      exports: [Readiness],
    };
  }
}
