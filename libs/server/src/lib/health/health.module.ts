import { Module, type DynamicModule } from '@nestjs/common';
import type { Storage } from '@assistant/storage';
import { STORAGE, type ReadinessCheck } from '@assistant/server-kit';
import { HealthController } from './health.controller';
import { databaseCheck, migrationsCheck, Readiness } from './readiness';

/**
 * `/healthz` and `/readyz`. The deployment's own parts (Redis) hand their checks in through
 * ServerParts.readinessChecks; shutdown marks the server draining through the application (`app.get(Readiness)`).
 */
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
