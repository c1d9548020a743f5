import { Controller, Header, Inject } from '@nestjs/common';
import { buildOpenApiDocument, type Health } from '@assistant/contracts';
import type { Storage } from '@assistant/storage';
import { STORAGE } from '../core.module';
import { Route } from '../routing/route.decorator';

@Controller()
export class OpenApiController {
  private document?: Record<string, unknown>;

  @Route('getOpenApi')
  @Header('cache-control', 'public, max-age=300')
  openapi(): Record<string, unknown> {
    // Built on first request, not at start-up: most processes never serve it.
    return (this.document ??= buildOpenApiDocument());
  }
}

/** Liveness and readiness in one: answers 200 when the database answers. Outside /api/v1. */
@Controller()
export class HealthController {
  constructor(@Inject(STORAGE) private readonly storage: Storage) {}

  @Route('getHealth')
  async health(): Promise<Health> {
    await this.storage.ping();
    return { status: 'ok', database: this.storage.dialect };
  }
}
