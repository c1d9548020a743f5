import { Controller, Header } from '@nestjs/common';
import { buildOpenApiDocument } from '@assistant/contracts';
import { Route } from '@assistant/server-kit';

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
