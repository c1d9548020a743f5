import { Controller, Header } from '@nestjs/common';
import type { ProtectedResourceMetadata } from '@assistant/contracts';
import { PublicAddress, Route } from '@assistant/server-kit';
import { DELEGABLE_SCOPES } from './authorization-server';

/** RFC 9728: this API as a protected resource, pointing clients to its authorization server. */
@Controller()
export class ResourceMetadataController {
  constructor(private readonly address: PublicAddress) {}

  @Route('getProtectedResourceMetadata')
  @Header('cache-control', 'public, max-age=300')
  metadata(): ProtectedResourceMetadata {
    return {
      resource: this.address.apiResource,
      authorization_servers: [this.address.url],
      scopes_supported: [...DELEGABLE_SCOPES],
      bearer_methods_supported: ['header'],
      resource_name: 'Assistant API',
      resource_documentation: `${this.address.apiResource}/openapi.json`,
    };
  }

  @Route('getRootProtectedResourceMetadata')
  @Header('cache-control', 'public, max-age=300')
  rootMetadata(): ProtectedResourceMetadata {
    return this.metadata();
  }
}
