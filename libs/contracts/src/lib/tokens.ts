import { z } from 'zod';
import { LIMITS } from './limits';
import { scopeSchema } from './scopes';
import { lineSchema, timestampSchema } from './common';

export const personalTokenSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    scopes: z.array(scopeSchema),
    /** The first characters of the secret, so that a user can tell tokens apart. */
    token_prefix: z.string(),
    created_at: timestampSchema,
    expires_at: timestampSchema.nullable(),
    last_used_at: timestampSchema.nullable(),
  })
  .meta({ id: 'PersonalToken' });
export type PersonalToken = z.infer<typeof personalTokenSchema>;

export const createTokenSchema = z
  .strictObject({
    name: lineSchema('name')
      .trim()
      .min(1, { error: 'name must not be empty' })
      .max(LIMITS.maxTokenNameChars, {
        error: `name must be at most ${LIMITS.maxTokenNameChars} characters`,
      }),
    scopes: z.array(scopeSchema).min(1, { error: 'give at least one scope' }),
    expires_at: z.iso
      .datetime({ offset: true, error: 'expires_at must be an RFC 3339 timestamp' })
      .refine((v) => Date.parse(v) > Date.now(), { error: 'expires_at must be in the future' })
      .optional(),
  })
  .meta({ id: 'CreateToken' });
export type CreateToken = z.infer<typeof createTokenSchema>;

/** The reply of `POST /tokens`: the only time the secret is shown. */
export const createdTokenSchema = personalTokenSchema
  .extend({ token: z.string().describe('The secret. Shown once; store it now.') })
  .meta({ id: 'CreatedToken' });
export type CreatedToken = z.infer<typeof createdTokenSchema>;
