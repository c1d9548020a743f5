import { Controller, Inject, Logger } from '@nestjs/common';
import type { Health, Readiness as ReadinessBody } from '@assistant/contracts';
import type { Storage } from '@assistant/storage';
import { STORAGE, Route, ApiError } from '@assistant/server-kit';
import { Readiness } from './readiness';

/**
 * Liveness and readiness, outside /api/v1 and not rate-limited. Liveness checks nothing but the process itself, so
 * that an orchestrator does not restart every instance when the database is down; readiness checks what serving
 * needs, so that a load balancer stops sending traffic to an instance that cannot serve it.
 */
@Controller()
export class HealthController {
  private readonly logger = new Logger('Readiness');

  constructor(
    @Inject(STORAGE) private readonly storage: Storage,
    private readonly readiness: Readiness,
  ) {}

  @Route('getHealth')
  health(): Health {
    return { status: 'ok', database: this.storage.dialect };
  }

  @Route('getReadiness')
  async ready(): Promise<ReadinessBody> {
    const { passed, failed } = await this.readiness.evaluate();
    if (failed.length === 0) return { status: 'ready', checks: passed };
    // The causes go to the log; the answer names the checks only (anyone may poll it).
    for (const { name, error } of failed) {
      if (error !== undefined) this.logger.warn({ err: error, check: name, msg: 'readiness check failed' });
    }
    throw new ApiError(
      'service_unavailable',
      `not ready: ${failed.map(({ name, reason }) => `${name} (${reason})`).join('; ')}`,
    );
  }
}
