import { z } from 'zod';
import { scopeSchema } from './scopes';
import { timestampSchema } from './common';

export const deploymentSchema = z.enum(['hosted', 'self-hosted']);
export type Deployment = z.infer<typeof deploymentSchema>;

export const tokenKindSchema = z.enum(['personal', 'device', 'oauth_access']);
export type TokenKind = z.infer<typeof tokenKindSchema>;

/** `GET /me`: the account and the token that made the call. */
export const accountSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    display_name: z.string(),
    created_at: timestampSchema,
    deployment: deploymentSchema,
    token: z.object({
      kind: tokenKindSchema,
      scopes: z.array(scopeSchema),
      client_id: z.string().optional(),
      expires_at: timestampSchema.nullable().optional(),
    }),
  })
  .meta({ id: 'Account' });
export type Account = z.infer<typeof accountSchema>;
