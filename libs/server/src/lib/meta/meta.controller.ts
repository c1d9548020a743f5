import { Controller, Get, Header, Inject } from '@nestjs/common';
import { buildOpenApiDocument } from '@assistant/contracts';
import { Public } from '@assistant/auth';
import type { Storage } from '@assistant/storage';
import { STORAGE } from '../core.module';

@Controller()
export class OpenApiController {
  private document?: Record<string, unknown>;

  @Get('openapi.json')
  @Public()
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

  @Get('healthz')
  @Public()
  async health(): Promise<{ status: 'ok'; database: string }> {
    await this.storage.dataSource.query('SELECT 1');
    return { status: 'ok', database: this.storage.dialect };
  }
}
