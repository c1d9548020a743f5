import { z } from 'zod';
import { scopeSchema } from './scopes';

/** RFC 9728: what a client needs to know to get a token for this API by itself (an MCP client, say). */
export const protectedResourceMetadataSchema = z
  .object({
    resource: z.string().describe("this API's resource identifier: the audience of its access tokens"),
    authorization_servers: z.array(z.string()).describe('the issuer to get tokens from'),
    scopes_supported: z.array(scopeSchema),
    bearer_methods_supported: z.array(z.literal('header')),
    resource_name: z.string(),
    resource_documentation: z.string().optional(),
  })
  .meta({ id: 'ProtectedResourceMetadata' });
export type ProtectedResourceMetadata = z.infer<typeof protectedResourceMetadataSchema>;
