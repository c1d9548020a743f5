import { z } from 'zod';
import { scopeSchema } from './scopes';
import { lineSchema, timestampSchema } from './common';

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
    auto_approved_tools: z
      .array(z.string())
      .describe('tools the assistant may use without asking first, side-effecting ones included'),
    token: z.object({
      kind: tokenKindSchema,
      scopes: z.array(scopeSchema),
      client_id: z.string().optional(),
      expires_at: timestampSchema.nullable().optional(),
    }),
  })
  .meta({ id: 'Account' });
export type Account = z.infer<typeof accountSchema>;

/** `PATCH /me`: the account's settings. */
export const updateAccountSchema = z
  .strictObject({
    auto_approved_tools: z
      .array(lineSchema('a tool name').min(1).max(64))
      .max(100)
      .describe(
        'tools the assistant may use without asking first (e.g. ["home_set_state"]); [] asks for every change',
      ),
  })
  .meta({ id: 'UpdateAccount' });
export type UpdateAccount = z.infer<typeof updateAccountSchema>;
